package unpack

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

func wantCondition(t testing.TB, l *BundleLookup, typ, reason, message string) {
	t.Helper()
	require.Len(t, l.Conditions, 1, "conditions, want one %s", typ)
	c := l.Conditions[0]
	require.Equal(t, typ, c.Type, "condition %+v", c)
	require.Equal(t, "True", c.Status, "condition %+v", c)
	require.Equal(t, reason, c.Reason, "condition %+v", c)
	require.True(t, strings.HasPrefix(c.Message, message), "condition message %q, want it to start with %q", c.Message, message)
	require.Nil(t, l.Manifest, "a pending or failed lookup carries a bundle")
}

// requireUnpacked fails t unless l is a lookup without conditions whose
// bundle was loaded with the name bundleName.
func requireUnpacked(t testing.TB, l *BundleLookup, bundleName, what string) {
	t.Helper()
	require.Empty(t, l.Conditions, "%s: conditions", what)
	require.NotNil(t, l.Manifest, "%s: manifest", what)
	require.Equal(t, bundleName, l.Manifest.Bundle.Name, "%s: bundle name", what)
}

// TestLookupTransitions walks one unpack through every state by writing Job
// status: catalog missing, not started, incomplete (with a pod waiting on
// its image), complete (the bundle loaded), and a second unpack that fails
// with DeadlineExceeded.
func TestLookupTransitions(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/foo-bundle:v0.1.0"
	name := Name(image)
	withCS := WithCatalogSource(CatalogSourceRef{ns, "catalog"})

	// The catalog does not exist yet: nothing is created.
	l, err := Launch(ctx, clients, image, ns, launchOpts(withCS)...)
	require.NoError(t, err, "launch without the catalog")
	wantCondition(t, l, ConditionPending, ReasonCatalogSourceMissing, "referenced catalogsource not found")
	_, err = clients.configMaps(ns).Get(ctx, name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "configmap created without a catalog source: %v", err)

	createCatalogSource(t, clients, ns, "catalog")
	l, err = Lookup(ctx, clients, image, ns, withCS)
	require.NoError(t, err, "lookup before launch")
	wantCondition(t, l, ConditionPending, ReasonJobNotStarted, "unpack job not yet started")

	l, err = Launch(ctx, clients, image, ns, launchOpts(withCS)...)
	require.NoError(t, err, "launch")
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete, "unpack job not completed")
	assert.Equal(t, "unpack job not completed", l.Conditions[0].Message, "message names pods, but there are none")

	// A pod of the Job waits for the bundle image.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-x", Labels: map[string]string{"job-name": name}},
		Spec:       corev1.PodSpec{ServiceAccountName: name, Containers: []corev1.Container{{Name: "extract", Image: "olmcat:test"}}},
	}
	pod, err = clients.pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	require.NoError(t, err, "create pod")
	pod.Status.Phase = corev1.PodPending
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "pull", Image: image,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}}
	_, err = c.Admin(t).CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err, "write pod status")
	l, err = Lookup(ctx, clients, image, ns, withCS)
	require.NoError(t, err, "lookup with a waiting pod")
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete,
		"unpack job not completed: Unpack pod("+ns+"/"+name+"-x) container(pull) is pending. Reason: ImagePullBackOff, Message: Back-off pulling image")

	// The Job's extract container writes the ConfigMap as the Job's
	// service account, then the Job completes.
	saWriter := configMapClient(t, c.TokenConfig(c.ServiceAccountToken(t, ns, name)))
	_, err = jobtool.Extract(ctx, saWriter, ns, name, jobtool.WithBundleDir("../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"), jobtool.WithGzip(true), jobtool.WithSourceImage(image))
	require.NoError(t, err, "extract as the job's service account")
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	l, err = Lookup(ctx, clients, image, ns, withCS)
	require.NoError(t, err, "lookup after the job completed")
	requireUnpacked(t, l, "foo.v0.1.0", "completed lookup")
	require.Equal(t, image, l.Manifest.Bundle.Image, "completed lookup: bundle image")

	// Another image's Job runs past its deadline.
	failing := "example/bar-bundle:v0.1.0"
	_, err = Launch(ctx, clients, failing, ns, launchOpts(withCS)...)
	require.NoError(t, err, "launch %s", failing)
	kubetest.FailJob(t, c.Admin(t), ns, Name(failing), "DeadlineExceeded", "Job was active longer than specified deadline")
	l, err = Lookup(ctx, clients, failing, ns, withCS)
	require.NoError(t, err, "lookup after the job failed")
	wantCondition(t, l, ConditionFailed, "DeadlineExceeded", "Job was active longer than specified deadline")
}

// TestLookupCompleteButNotABundle: a Job that completed without writing a
// loadable bundle fails the lookup with the load error, instead of
// leaving it pending forever as OLM did.
func TestLookupCompleteButNotABundle(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/empty-bundle:v1"
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err, "launch")
	kubetest.CompleteJob(t, c.Admin(t), ns, Name(image))
	l, err := Lookup(ctx, clients, image, ns)
	require.NoError(t, err, "lookup")
	wantCondition(t, l, ConditionFailed, ReasonInvalidBundle, "configmap "+ns+"/"+Name(image)+": no ClusterServiceVersion")
}

// TestLookupAfterJobTTL: once the finished Job is gone (its TTL), the
// ConfigMap still answers: the lookup is unpacked and Launch does not start
// a second unpack.
func TestLookupAfterJobTTL(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/baz-bundle:v1.1.0"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err, "launch")
	_, err = jobtool.Extract(ctx, adminWriter(t), ns, name, jobtool.WithBundleDir("../fixtures/bundles/small-fbb/baz-bundle-v1.1.0"), jobtool.WithGzip(true))
	require.NoError(t, err, "extract")
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	background := metav1.DeletePropagationBackground
	require.NoError(t, clients.jobs(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background}), "delete job")
	for _, step := range []struct {
		what string
		call func(context.Context, Clients, string, string, ...LaunchOption) (*BundleLookup, error)
	}{{"lookup", Lookup}, {"launch", Launch}} {
		l, err := step.call(ctx, clients, image, ns, testImages...)
		require.NoError(t, err, step.what)
		requireUnpacked(t, l, "baz.v1.1.0", step.what+" after the job's TTL")
	}
	_, err = clients.jobs(ns).Get(ctx, name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "launch recreated the job of an unpacked bundle: %v", err)
}

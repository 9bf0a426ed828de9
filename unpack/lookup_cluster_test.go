package unpack

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

func wantCondition(t *testing.T, l *BundleLookup, typ, reason, message string) {
	t.Helper()
	if len(l.Conditions) != 1 {
		t.Fatalf("conditions = %+v, want one %s", l.Conditions, typ)
	}
	c := l.Conditions[0]
	if c.Type != typ || c.Status != "True" || c.Reason != reason || !strings.HasPrefix(c.Message, message) {
		t.Fatalf("condition = %+v, want %s %s %q", c, typ, reason, message)
	}
	if l.Manifest != nil {
		t.Fatal("a pending or failed lookup carries a bundle")
	}
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
	l, err := Launch(ctx, clients, image, ns, withCS)
	if err != nil {
		t.Fatal(err)
	}
	wantCondition(t, l, ConditionPending, ReasonCatalogSourceMissing, "referenced catalogsource not found")
	if _, err := clients.configMaps(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("configmap created without a catalog source: %v", err)
	}

	createCatalogSource(t, clients, ns, "catalog")
	l, err = Lookup(ctx, clients, image, ns, withCS)
	if err != nil {
		t.Fatal(err)
	}
	wantCondition(t, l, ConditionPending, ReasonJobNotStarted, "unpack job not yet started")

	if l, err = Launch(ctx, clients, image, ns, withCS); err != nil {
		t.Fatal(err)
	}
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete, "unpack job not completed")
	if l.Conditions[0].Message != "unpack job not completed" {
		t.Errorf("message %q names pods, but there are none", l.Conditions[0].Message)
	}

	// A pod of the Job waits for the bundle image.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-x", Labels: map[string]string{"job-name": name}},
		Spec:       corev1.PodSpec{ServiceAccountName: name, Containers: []corev1.Container{{Name: "extract", Image: "olmcat:test"}}},
	}
	pod, err = clients.pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodPending
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "pull", Image: image,
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff", Message: "Back-off pulling image"}}}}
	if _, err := c.Admin(t).CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if l, err = Lookup(ctx, clients, image, ns, withCS); err != nil {
		t.Fatal(err)
	}
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete,
		"unpack job not completed: Unpack pod("+ns+"/"+name+"-x) container(pull) is pending. Reason: ImagePullBackOff, Message: Back-off pulling image")

	// The Job's extract container writes the ConfigMap as the Job's
	// service account, then the Job completes.
	saWriter := configMapClient(t, c.TokenConfig(c.ServiceAccountToken(t, ns, name)))
	if _, err := jobtool.Extract(ctx, saWriter, ns, name, jobtool.WithBundleDir("../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"), jobtool.WithGzip(true), jobtool.WithSourceImage(image)); err != nil {
		t.Fatal(err)
	}
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	if l, err = Lookup(ctx, clients, image, ns, withCS); err != nil {
		t.Fatal(err)
	}
	if len(l.Conditions) != 0 || l.Manifest == nil || l.Manifest.Bundle.Name != "foo.v0.1.0" || l.Manifest.Bundle.Image != image {
		t.Fatalf("completed lookup: conditions %+v, manifest %v", l.Conditions, l.Manifest)
	}

	// Another image's Job runs past its deadline.
	failing := "example/bar-bundle:v0.1.0"
	if _, err := Launch(ctx, clients, failing, ns, withCS); err != nil {
		t.Fatal(err)
	}
	kubetest.FailJob(t, c.Admin(t), ns, Name(failing), "DeadlineExceeded", "Job was active longer than specified deadline")
	if l, err = Lookup(ctx, clients, failing, ns, withCS); err != nil {
		t.Fatal(err)
	}
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
	if _, err := Launch(ctx, clients, image, ns); err != nil {
		t.Fatal(err)
	}
	kubetest.CompleteJob(t, c.Admin(t), ns, Name(image))
	l, err := Lookup(ctx, clients, image, ns)
	if err != nil {
		t.Fatal(err)
	}
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
	if _, err := Launch(ctx, clients, image, ns); err != nil {
		t.Fatal(err)
	}
	if _, err := jobtool.Extract(ctx, adminWriter(t), ns, name, jobtool.WithBundleDir("../fixtures/bundles/small-fbb/baz-bundle-v1.1.0"), jobtool.WithGzip(true)); err != nil {
		t.Fatal(err)
	}
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	background := metav1.DeletePropagationBackground
	if err := clients.jobs(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		what string
		call func(context.Context, Clients, string, string, ...LaunchOption) (*BundleLookup, error)
	}{{"lookup", Lookup}, {"launch", Launch}} {
		l, err := step.call(ctx, clients, image, ns)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Conditions) != 0 || l.Manifest == nil || l.Manifest.Bundle.Name != "baz.v1.1.0" {
			t.Fatalf("%s after the job's TTL: conditions %+v, manifest %v", step.what, l.Conditions, l.Manifest)
		}
	}
	if _, err := clients.jobs(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("launch recreated the job of an unpacked bundle: %v", err)
	}
}

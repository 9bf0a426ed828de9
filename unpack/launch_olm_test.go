package unpack

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// createOLMJob creates the unpack Job OLM v0.46.0's catalog operator
// creates for image (testdata/olm-bundle-unpack-job.yaml, printed from
// OLM's own ConfigMapUnpacker.job), owned by the ConfigMap cm.
func createOLMJob(t testing.TB, clients Clients, cm *corev1.ConfigMap, image string) *batchv1.Job {
	t.Helper()
	return createOLMJobNamed(t, clients, cm, image, Name(image))
}

// createOLMJobNamed is createOLMJob with the Job named jobName, as OLM
// names its retries.
func createOLMJobNamed(t testing.TB, clients Clients, cm *corev1.ConfigMap, image, jobName string) *batchv1.Job {
	t.Helper()
	raw, err := os.ReadFile("testdata/olm-bundle-unpack-job.yaml")
	require.NoError(t, err)
	var job batchv1.Job
	require.NoError(t, yaml.Unmarshal(raw, &job))
	name := Name(image)
	job.Name, job.Namespace = jobName, cm.Namespace
	job.Labels[LabelUnpackRef] = name
	job.Spec.Template.Labels[LabelUnpackRef] = name
	job.Spec.Template.Name = jobName
	job.OwnerReferences[0].Name, job.OwnerReferences[0].UID = cm.Name, cm.UID
	p := &job.Spec.Template.Spec
	p.ServiceAccountName = name
	p.InitContainers[1].Image = image
	p.InitContainers[1].ImagePullPolicy = pullPolicy(image)
	p.Containers[0].Command = []string{"opm", "alpha", "bundle", "extract", "-m", "/bundle/", "-n", cm.Namespace, "-c", name, "-z"}
	p.Containers[0].Env = []corev1.EnvVar{{Name: "CONTAINER_IMAGE", Value: image}}
	created, err := clients.jobs(cm.Namespace).Create(context.Background(), &job, metav1.CreateOptions{})
	require.NoError(t, err, "create OLM's job")
	return created
}

// TestLaunchKeepsOLMJobCreatedFirst: OLM's catalog operator unpacked (or
// is unpacking) the bundle first; olmcat reports that Job's state and
// result and never deletes it, though its images and commands differ from
// olmcat's.
func TestLaunchKeepsOLMJobCreatedFirst(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	cs := createCatalogSource(t, clients, ns, "catalog")
	image := "example/foo-bundle@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	name := Name(image)
	cm, err := clients.configMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: name, Labels: map[string]string{LabelManaged: "true"},
		OwnerReferences: []metav1.OwnerReference{ownerRef("operators.coreos.com/v1alpha1", "CatalogSource", "catalog", cs.GetUID())},
	}}, metav1.CreateOptions{})
	require.NoError(t, err)
	olm := createOLMJob(t, clients, cm, image)

	for _, opts := range [][]LaunchOption{launchOpts(), launchOpts(WithCatalogSource(CatalogSourceRef{ns, "catalog"}))} {
		l, err := Launch(ctx, clients, image, ns, opts...)
		require.NoError(t, err)
		wantCondition(t, l, ConditionPending, ReasonJobIncomplete, "unpack job not completed")
		require.True(t, l.ManagedByOLM, "lookup of OLM's job")
		require.Equal(t, olm.UID, getJob(t, clients, ns, name).UID, "olmcat replaced OLM's job")
	}

	_, err = jobtool.Extract(ctx, adminWriter(t), ns, name, jobtool.WithBundleDir("../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"), jobtool.WithGzip(true))
	require.NoError(t, err)
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	l, err := Launch(ctx, clients, image, ns, launchOpts()...)
	require.NoError(t, err)
	requireUnpacked(t, l, "foo.v0.1.0", "OLM's completed job")
	require.Equal(t, olm.UID, getJob(t, clients, ns, name).UID, "olmcat replaced OLM's job")
	require.ErrorIs(t, Cleanup(ctx, clients, image, ns), ErrManagedByOLM)
	require.Equal(t, olm.UID, getJob(t, clients, ns, name).UID, "cleanup deleted OLM's job")
}

// TestLaunchKeepsOLMJobCreatedSecond: olmcat unpacked first, then OLM's
// catalog operator replaced the Job with its own (it sees olmcat's as
// drift); olmcat's next run keeps OLM's Job and reports its failure, even
// with a retry interval, and its cleanup leaves it alone.
func TestLaunchKeepsOLMJobCreatedSecond(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/bar-bundle:v0.1.0"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, launchOpts()...)
	require.NoError(t, err)
	background := metav1.DeletePropagationBackground
	require.NoError(t, clients.jobs(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background}))
	olm := createOLMJob(t, clients, getConfigMap(t, clients, ns, name), image)

	l, err := Launch(ctx, clients, image, ns, launchOpts()...)
	require.NoError(t, err)
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete, "unpack job not completed")
	require.True(t, l.ManagedByOLM)
	kubetest.FailJob(t, c.Admin(t), ns, name, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
	l, err = Launch(ctx, clients, image, ns, launchOpts(WithMinRetryInterval(1))...)
	require.NoError(t, err)
	wantCondition(t, l, ConditionFailed, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
	require.True(t, l.ManagedByOLM)
	require.Equal(t, olm.UID, getJob(t, clients, ns, name).UID, "olmcat replaced OLM's job")
	require.ErrorIs(t, Cleanup(ctx, clients, image, ns), ErrManagedByOLM)
	require.Equal(t, olm.UID, getJob(t, clients, ns, name).UID, "cleanup deleted OLM's job")
}

// TestLaunchDefersToOLMRetryJob: OLM's catalog operator retries a failed
// unpack with a Job of a generated name (hash truncated, five random
// characters) carrying the bundle-unpack-ref label. While it exists,
// olmcat reports it and neither replaces its own failed Job nor starts
// another.
func TestLaunchDefersToOLMRetryJob(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/baz-bundle:v1.0.0"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, launchOpts()...)
	require.NoError(t, err)
	kubetest.FailJob(t, c.Admin(t), ns, name, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")
	own := getJob(t, clients, ns, name)
	retry := createOLMJobNamed(t, clients, getConfigMap(t, clients, ns, name), image, name[:58]+"x7k2q")

	l, err := Launch(ctx, clients, image, ns, launchOpts(WithMinRetryInterval(1))...)
	require.NoError(t, err)
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete, "unpack job not completed")
	require.True(t, l.ManagedByOLM, "lookup of OLM's retry job")
	require.Equal(t, own.UID, getJob(t, clients, ns, name).UID, "olmcat retried while OLM's retry runs")
	require.Equal(t, retry.UID, getJob(t, clients, ns, retry.Name).UID)
}

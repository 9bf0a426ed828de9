package unpack

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// TestLaunchRefusesWithoutImages: there is no default image for the util
// and opm roles (a default would name an image nobody publishes, and the
// Job would wait in ImagePullBackOff until its deadline): Launch refuses
// before creating anything.
func TestLaunchRefusesWithoutImages(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	image := "example/noimage-bundle:v1"
	for _, tc := range []struct {
		opts []LaunchOption
		want string
	}{
		{nil, "no image for the unpack Job's util and opm role"},
		{[]LaunchOption{WithUtilImage("olmcat:test")}, "no image for the unpack Job's opm role"},
		{[]LaunchOption{WithOpmImage("olmcat:test")}, "no image for the unpack Job's util role"},
	} {
		_, err := Launch(context.Background(), clients, image, ns, tc.opts...)
		require.ErrorContains(t, err, tc.want)
		requireNoUnpackObjects(t, clients, ns, Name(image))
	}
}

// TestLaunchRunAsUser: the pod runs as OLM's chart configures it (1001,
// non-root) by default; 0 or a negative user sets neither field, as OLM
// without a configured runAsUser, so the cluster picks the user (OpenShift
// rejects a fixed one outside the namespace's range).
func TestLaunchRunAsUser(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/uid-bundle:v1"
	for _, tc := range []struct {
		opts    []LaunchOption
		user    *int64
		nonRoot *bool
	}{
		{nil, ptr.To[int64](1001), ptr.To(true)},
		{[]LaunchOption{WithRunAsUser(0)}, nil, nil},
		{[]LaunchOption{WithRunAsUser(2000)}, ptr.To[int64](2000), ptr.To(true)},
		{[]LaunchOption{WithRunAsUser(-1)}, nil, nil},
	} {
		_, err := Launch(ctx, clients, image, ns, launchOpts(tc.opts...)...)
		require.NoError(t, err)
		sc := getJob(t, clients, ns, Name(image)).Spec.Template.Spec.SecurityContext
		require.NotNil(t, sc)
		assert.Equal(t, tc.user, sc.RunAsUser)
		assert.Equal(t, tc.nonRoot, sc.RunAsNonRoot)
		assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, sc.SeccompProfile.Type)
	}
}

// recreateJob replaces the stored Job name by a copy changed by mutate, as
// a mutating admission webhook would have stored it.
func recreateJob(t testing.TB, clients Clients, ns, name string, mutate func(*batchv1.Job)) *batchv1.Job {
	t.Helper()
	ctx := context.Background()
	job := getJob(t, clients, ns, name)
	background := metav1.DeletePropagationBackground
	require.NoError(t, clients.jobs(ns).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &background}))
	job.ObjectMeta = metav1.ObjectMeta{Name: job.Name, Namespace: ns, Labels: job.Labels, OwnerReferences: job.OwnerReferences}
	job.Spec.Selector = nil
	for _, k := range []string{"controller-uid", "batch.kubernetes.io/controller-uid", "job-name", "batch.kubernetes.io/job-name"} {
		delete(job.Spec.Template.Labels, k)
	}
	job.Status = batchv1.JobStatus{}
	mutate(job)
	created, err := clients.jobs(ns).Create(ctx, job, metav1.CreateOptions{})
	require.NoError(t, err, "recreate job")
	return created
}

// TestLaunchDriftIsDerivative: fields admission adds to the Job (a
// webhook's resources.limits, an extra label, a sidecar's env) are no
// drift: only the fields olmcat sets are compared, as OLM's DeepDerivative.
func TestLaunchDriftIsDerivative(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/webhook-bundle:v1"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	mutated := recreateJob(t, clients, ns, name, func(j *batchv1.Job) {
		j.Labels["policy.example/admitted"] = "true"
		p := &j.Spec.Template.Spec
		for _, cs := range [][]corev1.Container{p.InitContainers, p.Containers} {
			for i := range cs {
				cs[i].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("512Mi")}
				cs[i].Env = append(cs[i].Env, corev1.EnvVar{Name: "HTTP_PROXY", Value: "http://proxy:3128"})
			}
		}
	})
	l, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete, "unpack job not completed")
	require.Equal(t, mutated.UID, getJob(t, clients, ns, name).UID, "a Job admission added fields to was replaced")
}

// TestLaunchUnpackedConfigMapShortCircuits: once the ConfigMap holds the
// bundle, a re-run reports it unpacked and leaves the Job alone, even a
// Job that drifted since (it used to be recreated, and the run reported
// JobIncomplete after a successful unpack).
func TestLaunchUnpackedConfigMapShortCircuits(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/done-bundle:v1"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	_, err = jobtool.Extract(ctx, adminWriter(t), ns, name, jobtool.WithBundleDir("../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"), jobtool.WithGzip(true))
	require.NoError(t, err)
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	job := getJob(t, clients, ns, name)
	job.Spec.BackoffLimit = ptr.To[int32](6)
	_, err = clients.jobs(ns).Update(ctx, job, metav1.UpdateOptions{})
	require.NoError(t, err)
	l, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	requireUnpacked(t, l, "foo.v0.1.0", "re-run after success")
	require.Equal(t, job.UID, getJob(t, clients, ns, name).UID, "the Job of an unpacked bundle was replaced")
}

// TestLaunchTimeoutRoundsUp: a deadline under a second (or with a
// fraction) rounds up to whole seconds instead of vanishing.
func TestLaunchTimeoutRoundsUp(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	image := "example/deadline-bundle:v1"
	for _, tc := range []struct {
		timeout time.Duration
		want    int64
	}{{500 * time.Millisecond, 1}, {time.Nanosecond, 1}, {1500 * time.Millisecond, 2}, {2 * time.Second, 2}} {
		_, err := Launch(context.Background(), clients, image, ns, launchOpts(WithTimeout(tc.timeout))...)
		require.NoError(t, err)
		got := getJob(t, clients, ns, Name(image)).Spec.ActiveDeadlineSeconds
		require.NotNil(t, got, "--timeout %s set no deadline", tc.timeout)
		require.Equal(t, tc.want, *got, "--timeout %s", tc.timeout)
	}
}

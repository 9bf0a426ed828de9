package unpack

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
)

// TestLaunchRetriesFailedJob: a failed Job is kept (and reported) until it
// failed at least the minimum retry interval ago; then a fresh Job
// replaces it (OLM's bundle-unpack-min-retry-interval). Without an
// interval there is no automatic retry, as in OLM.
func TestLaunchRetriesFailedJob(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/retry-bundle:v1"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	kubetest.FailJob(t, c.Admin(t), ns, name, batchv1.JobReasonDeadlineExceeded, "Job was active longer than specified deadline")
	failed := getJob(t, clients, ns, name).UID
	for _, retry := range []time.Duration{0, time.Hour} {
		l, err := Launch(ctx, clients, image, ns, launchOpts(WithMinRetryInterval(retry))...)
		require.NoError(t, err)
		wantCondition(t, l, ConditionFailed, batchv1.JobReasonDeadlineExceeded, "Job was active longer")
		require.Equal(t, failed, getJob(t, clients, ns, name).UID, "retry interval %s", retry)
	}
	l, err := Launch(ctx, clients, image, ns, launchOpts(WithMinRetryInterval(time.Millisecond))...)
	require.NoError(t, err)
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete, "unpack job not completed")
	fresh := getJob(t, clients, ns, name)
	require.NotEqual(t, failed, fresh.UID, "the failed Job was not replaced")
	require.Empty(t, fresh.Status.Conditions)
}

// TestLaunchWaitsForTerminatingJob: a Job being deleted (a finalizer holds
// it) is not the current unpack: Lookup says so instead of reporting its
// state, and Launch waits until it is gone and creates a fresh one.
func TestLaunchWaitsForTerminatingJob(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/terminating-bundle:v1"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	kubetest.FailJob(t, c.Admin(t), ns, name, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
	job := getJob(t, clients, ns, name)
	job.Finalizers = []string{"test.olmcat/hold"}
	_, err = clients.jobs(ns).Update(ctx, job, metav1.UpdateOptions{})
	require.NoError(t, err)
	require.NoError(t, clients.jobs(ns).Delete(ctx, name, metav1.DeleteOptions{}))

	l, err := Lookup(ctx, clients, image, ns)
	require.NoError(t, err)
	wantCondition(t, l, ConditionPending, ReasonJobNotStarted, "unpack job "+ns+"/"+name+" is being deleted")

	released := make(chan error, 1)
	go func() {
		time.Sleep(500 * time.Millisecond)
		held, err := clients.jobs(ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			held.Finalizers = nil
			_, err = clients.jobs(ns).Update(ctx, held, metav1.UpdateOptions{})
		}
		released <- err
	}()
	l, err = Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	require.NoError(t, <-released)
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete, "unpack job not completed")
	fresh := getJob(t, clients, ns, name)
	require.NotEqual(t, job.UID, fresh.UID, "the terminating Job was reported as the current one")
	require.Nil(t, fresh.DeletionTimestamp)
}

// TestLookupNamesInitContainersWithoutReason: every init container that
// has not finished is named in the pending message, also one running or
// waiting without a reason (it used to be left out).
func TestLookupNamesInitContainersWithoutReason(t *testing.T) {
	c := kubetest.Get(t)
	clients := installCatalogSourceCRD(t, c)
	ns := c.Namespace(t)
	ctx := context.Background()
	image := "example/slow-bundle:v1"
	name := Name(image)
	_, err := Launch(ctx, clients, image, ns, testImages...)
	require.NoError(t, err)
	pod, err := clients.pods(ns).Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-p", Labels: map[string]string{"job-name": name}},
		Spec:       corev1.PodSpec{ServiceAccountName: name, Containers: []corev1.Container{{Name: "extract", Image: "olmcat:test"}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	pod.Status.Phase = corev1.PodPending
	pod.Status.InitContainerStatuses = []corev1.ContainerStatus{
		{Name: "util", Image: "olmcat:test", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed"}}},
		{Name: "pull", Image: image, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}},
	}
	_, err = c.Admin(t).CoreV1().Pods(ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	require.NoError(t, err)
	l, err := Lookup(ctx, clients, image, ns)
	require.NoError(t, err)
	wantCondition(t, l, ConditionPending, ReasonJobIncomplete,
		"unpack job not completed: Unpack pod("+ns+"/"+name+"-p) container(pull) is pending.")
	require.NotContains(t, l.Conditions[0].Message, "container(util)")
}

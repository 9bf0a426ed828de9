//go:build !slim

package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack"
)

// TestBundleUnpackNeedsImages: without an image for each Job role the
// command refuses before creating anything (it used to default to an image
// no registry serves, and the Job waited in ImagePullBackOff until its
// deadline), naming make image and the flags.
func TestBundleUnpackNeedsImages(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	admin := c.Kubeconfig(t, c.AdminConfig())
	image := "example/noimage-bundle:v1"
	for _, flags := range [][]string{nil, {"--util-image", "olmcat:test"}, {"--opm-image", "olmcat:test"}} {
		_, stderr, code := runCLI(t, append([]string{"bundle", "unpack", image, "-n", ns, "--kubeconfig", admin}, flags...)...)
		require.Equal(t, exitUsage, code, stderr)
		for _, want := range []string{"make image", "--tool-image", "--util-image", "--opm-image"} {
			assert.Contains(t, stderr, want)
		}
		_, err := c.Admin(t).CoreV1().ConfigMaps(ns).Get(context.Background(), unpack.Name(image), metav1.GetOptions{})
		require.True(t, apierrors.IsNotFound(err), "configmap created: %v", err)
	}
}

// TestBundleUnpackJobFlags: one image flag per role, --run-as-user 0
// (no runAsUser, no runAsNonRoot), repeated --pull-secret, and a
// sub-second --timeout rounded up to one second.
func TestBundleUnpackJobFlags(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	admin := c.Kubeconfig(t, c.AdminConfig())
	image := "example/flags-bundle:v1"
	_, stderr, code := runCLI(t, "bundle", "unpack", image, "-n", ns, "--kubeconfig", admin,
		"--util-image", "example/util:v1", "--opm-image", "example/opm:v1", "--run-as-user", "0",
		"--pull-secret", "regcred", "--pull-secret", "mirror", "--timeout", "500ms")
	require.Equal(t, 0, code, stderr)
	job, err := c.Admin(t).BatchV1().Jobs(ns).Get(context.Background(), unpack.Name(image), metav1.GetOptions{})
	require.NoError(t, err)
	p := job.Spec.Template.Spec
	assert.Equal(t, "example/util:v1", p.InitContainers[0].Image)
	assert.Equal(t, image, p.InitContainers[1].Image)
	assert.Equal(t, "example/opm:v1", p.Containers[0].Image)
	assert.Nil(t, p.SecurityContext.RunAsUser)
	assert.Nil(t, p.SecurityContext.RunAsNonRoot)
	assert.Equal(t, []corev1.LocalObjectReference{{Name: "regcred"}, {Name: "mirror"}}, p.ImagePullSecrets)
	require.NotNil(t, job.Spec.ActiveDeadlineSeconds, "--timeout 500ms set no deadline")
	assert.Equal(t, int64(1), *job.Spec.ActiveDeadlineSeconds)
}

// TestBundleUnpackRetryAndCleanup: a failure says how to retry (a Job
// that completed without a loadable bundle too);
// --min-retry-interval replaces the failed Job; once the bundle loaded,
// --cleanup deletes every unpack object.
func TestBundleUnpackRetryAndCleanup(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	admin := c.Kubeconfig(t, c.AdminConfig())
	ctx := context.Background()
	image := "example/etcd-bundle:v0.9.2"
	name := unpack.Name(image)
	args := []string{"bundle", "unpack", image, "-n", ns, "--kubeconfig", admin, "--tool-image", "olmcat:test"}
	_, stderr, code := runCLI(t, args...)
	require.Equal(t, 0, code, stderr)
	jobs := c.Admin(t).BatchV1().Jobs(ns)
	failed, err := jobs.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	kubetest.FailJob(t, c.Admin(t), ns, name, batchv1.JobReasonBackoffLimitExceeded, "Job has reached the specified backoff limit")
	_, stderr, code = runCLI(t, args...)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "to retry, run again with --min-retry-interval=1s")

	empty := []string{"bundle", "unpack", "example/empty-bundle:v1", "-n", ns, "--kubeconfig", admin, "--tool-image", "olmcat:test"}
	_, stderr, code = runCLI(t, empty...)
	require.Equal(t, 0, code, stderr)
	kubetest.CompleteJob(t, c.Admin(t), ns, unpack.Name("example/empty-bundle:v1"))
	_, stderr, code = runCLI(t, empty...)
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "ErrorPreventedUnpacking")
	require.Contains(t, stderr, "to retry once the bundle image is fixed, delete configmap "+ns+"/"+unpack.Name("example/empty-bundle:v1"))

	_, stderr, code = runCLI(t, append(args, "--min-retry-interval", "1ms")...)
	require.Equal(t, 0, code, stderr)
	fresh, err := jobs.Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err)
	require.NotEqual(t, failed.UID, fresh.UID, "the failed job was not replaced")

	_, stderr, code = runCLI(t, "bundle", "extract", "-m", "../../fixtures/bundles/opm-bundles/etcd.0.9.2", "-c", name, "-n", ns, "-z", "--kubeconfig", admin)
	require.Equal(t, 0, code, stderr)
	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	out, stderr, code := runCLI(t, append(args, "--cleanup", "--wait", "--poll-interval", "50ms")...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"bundle": "etcdoperator.v0.9.2"`)
	_, err = jobs.Get(ctx, name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "job after --cleanup: %v", err)
	_, err = c.Admin(t).CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "configmap after --cleanup: %v", err)
	_, err = c.Admin(t).CoreV1().ServiceAccounts(ns).Get(ctx, name, metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "serviceaccount after --cleanup: %v", err)
}

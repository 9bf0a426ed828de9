package main

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/internal/testutil/podrun"
	"github.com/operator-catalog/olmcat/unpack"
)

// The unpack Jobs of issue 24 (runs 4 and 5): their pods run by the pod
// harness against the real test API server, each pod reaching it as a
// pod does (its service account's token, the kubernetes Service's
// address and environment).

// jobPodBudget bounds how long an unpack Job's pod may take to complete.
const jobPodBudget = 3 * time.Minute

// clusterPodRuntime is the pod harness with c as the pods' cluster: the
// kubelet's service account volume (a TokenRequest token, the CA, the
// namespace) and the API server at its loopback address inside each pod.
func clusterPodRuntime(t *testing.T, c *kubetest.Cluster) *podrun.Runtime {
	t.Helper()
	u, err := url.Parse(c.Host)
	require.NoError(t, err)
	admin := c.Admin(t)
	token := func(ctx context.Context, ns, sa string) (string, error) {
		expiry := int64(time.Hour / time.Second)
		tr, err := admin.CoreV1().ServiceAccounts(ns).CreateToken(ctx, sa,
			&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}}, metav1.CreateOptions{})
		if err != nil {
			return "", err
		}
		return tr.Status.Token, nil
	}
	return podRuntime(t, podrun.WithAPIServer(podrun.APIServer{Addr: u.Host, CA: c.CAData, Token: token}))
}

// jobPod is the pod the Job controller creates from job's template, in
// namespace ns.
func jobPod(job *batchv1.Job, ns string) *corev1.Pod {
	pod := &corev1.Pod{ObjectMeta: *job.Spec.Template.ObjectMeta.DeepCopy(), Spec: *job.Spec.Template.Spec.DeepCopy()}
	pod.Name, pod.GenerateName, pod.Namespace = "", job.Name+"-", ns
	return pod
}

// runJobPod runs a Job's pod to completion and requires it Succeeded.
func runJobPod(t *testing.T, rt *podrun.Runtime, pod *corev1.Pod) *podrun.Pod {
	t.Helper()
	p := rt.Run(t, pod)
	ctx, cancel := context.WithTimeout(context.Background(), jobPodBudget)
	defer cancel()
	phase, err := p.WaitDone(ctx)
	require.NoError(t, err)
	require.Equal(t, corev1.PodSucceeded, phase, p.Describe())
	return p
}

// createOLMUnpackObjects creates OLM's objects for an unpack Job in ns
// (its ConfigMap, ServiceAccount, Role and RoleBinding, as OLM v0.46.0
// creates them, their owners left out: no garbage collector runs) and
// returns the Job, its namespace and -n argument moved to ns.
func createOLMUnpackObjects(t *testing.T, c *kubetest.Cluster, ns string, imgs podrun.Images) *batchv1.Job {
	t.Helper()
	ctx, cs := context.Background(), c.Admin(t)
	var (
		cm   corev1.ConfigMap
		sa   corev1.ServiceAccount
		role rbacv1.Role
		rb   rbacv1.RoleBinding
		job  batchv1.Job
	)
	for file, obj := range map[string]metav1.Object{"bundle-unpack-configmap.yaml": &cm, "bundle-unpack-serviceaccount.yaml": &sa,
		"bundle-unpack-role.yaml": &role, "bundle-unpack-rolebinding.yaml": &rb, "bundle-unpack-job.yaml": &job} {
		require.NoError(t, podrun.OLMObject(file, imgs, obj))
		obj.SetNamespace(ns)
		obj.SetOwnerReferences(nil)
	}
	rb.Subjects[0].Namespace = ns
	_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &cm, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.CoreV1().ServiceAccounts(ns).Create(ctx, &sa, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.RbacV1().Roles(ns).Create(ctx, &role, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = cs.RbacV1().RoleBindings(ns).Create(ctx, &rb, metav1.CreateOptions{})
	require.NoError(t, err)
	cmd := job.Spec.Template.Spec.Containers[0].Command
	i := slices.Index(cmd, "-n")
	require.Positive(t, i, "the extract command names its namespace")
	cmd[i+1] = ns
	return &job
}

// TestPodOLMUnpackJob (issue 24 run 4): OLM v0.46.0's unpack Job pod,
// with olmcat's own image as OLM's opm image and OLM's image as the util
// image, run against the real test API server as the Job's service
// account: util copies cpb, pull copies the bundle image's content,
// extract (olmcat's opm alpha bundle extract) writes the ConfigMap, which
// bundle load prints as opm renders that bundle image.
func TestPodOLMUnpackJob(t *testing.T) {
	c := kubetest.Get(t)
	rt := clusterPodRuntime(t, c)
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	const bundleRoot = "../../fixtures/bundles/opm-bundles/etcd.0.9.2"
	imgs := podrun.Images{Opm: buildToolImage(t, reg, flags), OLM: reg.Push(t, "olm/olm:v0.46.0", podrun.OLMImage(t)),
		Bundle: pushBundleImage(t, reg, "bundles/etcd:v0.9.2", bundleRoot)}
	ns := c.Namespace(t)
	job := createOLMUnpackObjects(t, c, ns, imgs)
	pod := runJobPod(t, rt, jobPod(job, ns))
	assert.Zero(t, pod.Restarts("extract"))
	got, stderr, code := runCLI(t, "bundle", "load", ns+"/"+job.Name, "--kubeconfig", c.Kubeconfig(t, c.AdminConfig()))
	require.Equal(t, 0, code, "%s\n%s", stderr, pod.Describe())
	assert.Equal(t, opmImageRender(t, bundleRoot, imgs.Bundle), got)
}

// TestPodBundleUnpackJob (issue 24 run 5): the Job olmcat bundle unpack
// creates (--tool-image olmcat's own image, --extra-metadata so that
// the bundle's dependencies.yaml is kept), read back from the API
// server and its pod template run by the harness as the Job controller
// would: the pod succeeds, the ConfigMap holds the bundle (bundle load
// prints opm's render of the image), and once the Job's status says
// Complete the BundleLookup has left JobIncomplete for its final state
// (the bundle, no conditions).
func TestPodBundleUnpackJob(t *testing.T) {
	c := kubetest.Get(t)
	rt := clusterPodRuntime(t, c)
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	const bundleRoot = "../../fixtures/bundles/opm-bundles/etcd.0.9.2"
	tool := buildToolImage(t, reg, flags)
	bundle := pushBundleImage(t, reg, "bundles/etcd:v0.9.2", bundleRoot)
	ns := c.Namespace(t)
	admin := c.Kubeconfig(t, c.AdminConfig())
	unpackCmd := []string{"bundle", "unpack", bundle, "-n", ns, "--kubeconfig", admin, "--tool-image", tool, "--extra-metadata"}
	out, stderr, code := runCLI(t, unpackCmd...)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"reason": "JobIncomplete"`)

	name := unpack.Name(bundle)
	job, err := c.Admin(t).BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	pod := runJobPod(t, rt, jobPod(job, ns))
	got, stderr, code := runCLI(t, "bundle", "load", ns+"/"+name, "--kubeconfig", admin)
	require.Equal(t, 0, code, "%s\n%s", stderr, pod.Describe())
	assert.Equal(t, opmImageRender(t, bundleRoot, bundle), got)

	kubetest.CompleteJob(t, c.Admin(t), ns, name)
	out, stderr, code = runCLI(t, append(unpackCmd, "--wait", "--poll-interval", "50ms")...)
	require.Equal(t, 0, code, stderr)
	var res map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &res))
	assert.Equal(t, "etcdoperator.v0.9.2", res["bundle"])
	assert.Equal(t, ns+"/"+name, res["configMap"])
	assert.Nil(t, res["conditions"], out)
}

// TestPodInitContainerKilled (issue 24 run 6, the last bad case): an init
// container SIGKILLed in the middle of its copy (KillInCopy holds the
// copy and kills the container then, so the kill never comes after the
// copy ended; the test checks the destination was short of its source).
// In OLM's extractContent catalog pod (olmcat's image as opm) the util
// copy (extract-utilities) or the catalog's (extract-content, killed in
// its second file): the harness restarts it as the kubelet does, the
// copy over what the killed one left succeeds, and the pod becomes Ready
// and serves the catalog (parity --strict). In the unpack Job's pod
// (restartPolicy Never) the killed util copy fails the pod; the Job
// controller's next pod (within backoffLimit 3) completes the Job.
func TestPodInitContainerKilled(t *testing.T) {
	rt := podRuntime(t)
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	const dir = "../../fixtures/legacy/small-fbb/opm-migrate"
	imgs := podrun.Images{Catalog: buildCatalogImage(t, reg, flags, dir, "small-fbb"), Opm: buildToolImage(t, reg, flags),
		OLM: reg.Push(t, "olm/olm:v0.46.0", podrun.OLMImage(t))}
	for _, k := range []struct {
		container string
		copy      int
	}{{"extract-utilities", 1}, {"extract-content", 2}} {
		t.Run("catalog pod/"+k.container, func(t *testing.T) {
			spec, err := podrun.OLMPod(extractContentModes[0], imgs)
			require.NoError(t, err)
			pod := rt.Run(t, spec, podrun.KillInCopy(k.container, k.copy))
			ctx, cancel := context.WithTimeout(context.Background(), initBudget+startupBudget(&spec.Spec.Containers[0]))
			defer cancel()
			require.NoError(t, pod.WaitReady(ctx))
			requireKilledMidCopy(t, pod, k.container)
			assert.Equal(t, 1, pod.Restarts(k.container), pod.Describe())
			podParity(t, pod, dir)
		})
	}
	t.Run("unpack Job/util", func(t *testing.T) {
		c := kubetest.Get(t)
		clusterRT := clusterPodRuntime(t, c)
		const bundleRoot = "../../fixtures/bundles/opm-bundles/etcd.0.9.2"
		imgs := imgs
		imgs.Bundle = pushBundleImage(t, reg, "bundles/etcd:v0.9.2", bundleRoot)
		ns := c.Namespace(t)
		job := createOLMUnpackObjects(t, c, ns, imgs)
		first := clusterRT.Run(t, jobPod(job, ns), podrun.KillInCopy("util", 1))
		ctx, cancel := context.WithTimeout(context.Background(), jobPodBudget)
		defer cancel()
		phase, err := first.WaitDone(ctx)
		require.NoError(t, err)
		require.Equal(t, corev1.PodFailed, phase, first.Describe())
		requireKilledMidCopy(t, first, "util")
		require.Positive(t, *job.Spec.BackoffLimit, "the Job allows a retry")
		second := runJobPod(t, clusterRT, jobPod(job, ns))
		got, stderr, code := runCLI(t, "bundle", "load", ns+"/"+job.Name, "--kubeconfig", c.Kubeconfig(t, c.AdminConfig()))
		require.Equal(t, 0, code, "%s\n%s", stderr, second.Describe())
		assert.Equal(t, opmImageRender(t, bundleRoot, imgs.Bundle), got)
	})
}

// requireKilledMidCopy checks that KillInCopy killed a container while
// its copy's destination was short of the source, and that the container
// exited as SIGKILLed.
func requireKilledMidCopy(t *testing.T, pod *podrun.Pod, container string) {
	t.Helper()
	k, ok := pod.Killed(container)
	require.True(t, ok, "not killed in a copy: %s", pod.Describe())
	require.Less(t, k.Written, k.Size, "%+v", k)
	t.Logf("killed in the copy to %s at %d of %d bytes", k.Dest, k.Written, k.Size)
	assert.Contains(t, pod.Describe(), "Container "+container+" exited with code 137")
}

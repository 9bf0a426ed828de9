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

package kubetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	authenticationv1 "k8s.io/api/authentication/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

func newGet(ctx context.Context, url string) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
}

// Admin returns a clientset authenticated as a system:masters user.
func (c *Cluster) Admin(t testing.TB) kubernetes.Interface {
	t.Helper()
	return c.client(t, c.AdminConfig())
}

func (c *Cluster) client(t testing.TB, cfg *rest.Config) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cfg)
	require.NoError(t, err, "clientset")
	return cs
}

// Namespace creates a namespace with a random name for t and deletes it
// when t ends (without a namespace controller it stays Terminating, which
// isolates tests all the same).
func (c *Cluster) Namespace(t testing.TB) string {
	t.Helper()
	raw := make([]byte, 4)
	_, err := rand.Read(raw)
	require.NoError(t, err, "random namespace name")
	name := "t-" + hex.EncodeToString(raw)
	cs := c.Admin(t)
	ctx := context.Background()
	_, err = cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err, "create namespace %s", name)
	t.Cleanup(func() {
		_ = cs.CoreV1().Namespaces().Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

// ServiceAccountToken asks the API server (TokenRequest) for a token of the
// service account namespace/name, which must exist.
func (c *Cluster) ServiceAccountToken(t testing.TB, namespace, name string) string {
	t.Helper()
	expiry := int64(time.Hour / time.Second)
	tr, err := c.Admin(t).CoreV1().ServiceAccounts(namespace).CreateToken(context.Background(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: &expiry}},
		metav1.CreateOptions{})
	require.NoError(t, err, "token for serviceaccount %s/%s", namespace, name)
	return tr.Status.Token
}

// Kubeconfig writes a kubeconfig file for cfg's host, CA and bearer token
// into a temp dir of t and returns its path.
func (c *Cluster) Kubeconfig(t testing.TB, cfg *rest.Config) string {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	kc.Clusters["kubetest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["kubetest"] = &clientcmdapi.AuthInfo{Token: cfg.BearerToken}
	kc.Contexts["kubetest"] = &clientcmdapi.Context{Cluster: "kubetest", AuthInfo: "kubetest"}
	kc.CurrentContext = "kubetest"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	require.NoError(t, clientcmd.WriteToFile(*kc, path), "write kubeconfig")
	return path
}

// CompleteJob writes the status the Job controller writes when a Job
// succeeds (SuccessCriteriaMet, then Complete).
func CompleteJob(t testing.TB, client kubernetes.Interface, namespace, name string) {
	t.Helper()
	setJobConditions(t, client, namespace, name,
		batchv1.JobCondition{Type: batchv1.JobSuccessCriteriaMet},
		batchv1.JobCondition{Type: batchv1.JobComplete})
}

// FailJob writes the status the Job controller writes when a Job fails
// with reason (FailureTarget, then Failed), e.g. DeadlineExceeded.
func FailJob(t testing.TB, client kubernetes.Interface, namespace, name, reason, message string) {
	t.Helper()
	setJobConditions(t, client, namespace, name,
		batchv1.JobCondition{Type: batchv1.JobFailureTarget, Reason: reason, Message: message},
		batchv1.JobCondition{Type: batchv1.JobFailed, Reason: reason, Message: message})
}

func setJobConditions(t testing.TB, client kubernetes.Interface, namespace, name string, conds ...batchv1.JobCondition) {
	t.Helper()
	ctx := context.Background()
	job, err := client.BatchV1().Jobs(namespace).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get job %s/%s", namespace, name)
	start := metav1.NewTime(time.Now().Add(-time.Second).Truncate(time.Second))
	job.Status.StartTime = &start
	for _, c := range conds {
		c.Status = corev1.ConditionTrue
		c.LastProbeTime, c.LastTransitionTime = start, start
		job.Status.Conditions = append(job.Status.Conditions, c)
		switch c.Type {
		case batchv1.JobComplete:
			done := metav1.NewTime(start.Add(time.Second))
			job.Status.CompletionTime = &done
			job.Status.Succeeded = 1
		case batchv1.JobFailed:
			job.Status.Failed = 1
		}
	}
	_, err = client.BatchV1().Jobs(namespace).UpdateStatus(ctx, job, metav1.UpdateOptions{})
	require.NoError(t, err, "write status of job %s/%s", namespace, name)
}

// Package kubetest runs a real kube-apiserver backed by etcd on loopback for
// tests: RBAC authorization, service-account tokens (TokenRequest), the
// 1 MiB object limit and server-side defaulting all behave as on a cluster.
// There is no controller-manager or kubelet: nothing runs Jobs or collects
// garbage, so tests drive Job status themselves.
//
// One API server serves a whole test package: call Main from TestMain and
// Get from each test, which starts the server on first use and gives every
// test its own namespace through Cluster.Namespace.
//
// Binaries are found through TEST_ASSET_ETCD and TEST_ASSET_KUBE_APISERVER
// (the names controller-runtime's envtest uses), else etcd on PATH and the
// newest kube-apiserver-v* that scripts/install-kube-apiserver.sh cached
// under the user cache dir. When they are missing Get skips the test, unless
// TEST_ASSETS_REQUIRED is non-empty (make test sets it), when it fails:
// CI cannot pass without running the cluster tests.
package kubetest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Environment variables read by the harness.
const (
	EnvEtcd      = "TEST_ASSET_ETCD"
	EnvAPIServer = "TEST_ASSET_KUBE_APISERVER"
	EnvRequired  = "TEST_ASSETS_REQUIRED"
)

var (
	once     sync.Once
	shared   *Cluster
	startErr error
)

// Main runs the package's tests and stops the shared cluster afterwards.
// Use it as `func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }`.
func Main(m *testing.M) int {
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	return code
}

// Get returns the package's cluster, starting it on first use. It skips t
// in -short mode and when the binaries are missing (unless
// TEST_ASSETS_REQUIRED is set, when a missing binary fails t), and fails t
// when the cluster cannot start.
func Get(t testing.TB) *Cluster {
	t.Helper()
	if testing.Short() && os.Getenv(EnvRequired) == "" {
		t.Skip("cluster test skipped in -short mode")
	}
	once.Do(func() {
		var bins Binaries
		bins, startErr = FindBinaries()
		if startErr != nil {
			return
		}
		shared, startErr = Start(bins)
	})
	if startErr != nil {
		var missing *MissingError
		if asMissing(startErr, &missing) && os.Getenv(EnvRequired) == "" {
			t.Skipf("cluster test skipped: %v", startErr)
		}
		require.NoError(t, startErr, "cluster")
	}
	return shared
}

// Binaries are the executables a Cluster runs.
type Binaries struct {
	Etcd      string
	APIServer string
}

// MissingError reports a binary that could not be found.
type MissingError struct {
	Name, Hint string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("%s binary not found (%s)", e.Name, e.Hint)
}

func asMissing(err error, target **MissingError) bool {
	m, ok := err.(*MissingError)
	if ok {
		*target = m
	}
	return ok
}

// FindBinaries locates etcd and kube-apiserver as the package doc describes.
func FindBinaries() (Binaries, error) {
	var b Binaries
	b.Etcd = os.Getenv(EnvEtcd)
	if b.Etcd == "" {
		p, err := exec.LookPath("etcd")
		if err != nil {
			return b, &MissingError{Name: "etcd", Hint: "set " + EnvEtcd + " or install Debian's etcd-server; make test does"}
		}
		b.Etcd = p
	}
	b.APIServer = os.Getenv(EnvAPIServer)
	if b.APIServer == "" {
		b.APIServer = cachedAPIServer()
		if b.APIServer == "" {
			return b, &MissingError{Name: "kube-apiserver", Hint: "set " + EnvAPIServer + " or run scripts/install-kube-apiserver.sh; make test does"}
		}
	}
	for _, p := range []string{b.Etcd, b.APIServer} {
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return b, &MissingError{Name: filepath.Base(p), Hint: p + " is not a file"}
		}
	}
	return b, nil
}

// cachedAPIServer returns the newest kube-apiserver the install script
// cached, or "".
func cachedAPIServer() string {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".cache")
	}
	matches, _ := filepath.Glob(filepath.Join(dir, "olmcat-test", "kube-apiserver-v*"))
	if len(matches) == 0 {
		return ""
	}
	sort.Strings(matches)
	return matches[len(matches)-1]
}

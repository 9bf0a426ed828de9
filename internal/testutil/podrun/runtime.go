package podrun

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// Runtime runs pods with runc. Its state (runc's, the pods' bundles,
// volumes and logs) lives in one directory removed at the test's end.
type Runtime struct {
	runc     string
	dir      string
	pullOpts []image.Option
	api      *APIServer

	mu     sync.Mutex
	images map[string]*pulled
}

// Option configures a Runtime.
type Option func(*Runtime)

// WithPullOptions sets the options images are pulled with.
func WithPullOptions(opts ...image.Option) Option {
	return func(r *Runtime) { r.pullOpts = append(r.pullOpts, opts...) }
}

// APIServer is the cluster a pod's in-cluster configuration points at.
type APIServer struct {
	// Addr is the API server's host:port on the host's loopback; its
	// certificate must be valid for that IP, the pod reaching it at the
	// same address inside its own namespace.
	Addr string
	// CA is the PEM bundle the pod's ca.crt holds.
	CA []byte
	// Token returns a token for a service account, as the kubelet's
	// TokenRequest does.
	Token func(ctx context.Context, namespace, serviceAccount string) (string, error)
}

// WithAPIServer gives pods a service account token and the in-cluster
// environment for api.
func WithAPIServer(api APIServer) Option { return func(r *Runtime) { r.api = &api } }

// debianRunc is where Debian's runc package installs runc, outside a
// user's PATH.
const debianRunc = "/usr/sbin/runc"

// findRunc is runc on PATH, else Debian's.
func findRunc() (string, error) {
	if p, err := exec.LookPath("runc"); err == nil {
		return p, nil
	}
	return exec.LookPath(debianRunc)
}

// Available says why pods cannot run here: no runc (on PATH or Debian's),
// or not root (runc creates namespaces, mounts and cgroups).
func Available() error {
	if _, err := findRunc(); err != nil {
		return fmt.Errorf("runc not found (Debian's runc package): %w", err)
	}
	if os.Geteuid() != 0 {
		return errors.New("running pods with runc needs root")
	}
	return nil
}

// New returns a Runtime whose pods are stopped when t ends. Check
// Available first.
func New(t testing.TB, opts ...Option) *Runtime {
	t.Helper()
	runc, err := findRunc()
	require.NoError(t, err)
	// Not t.TempDir: a test binary killed (a timeout's panic, SIGKILL)
	// runs no cleanup and leaves its containers running; the next
	// runtime finds its directory abandoned (tempdir's lock) and reaps it.
	abandoned, _, err := tempdir.Claim(os.TempDir(), dirPrefix)
	require.NoError(t, err)
	for _, d := range abandoned {
		reap(runc, d.Path)
		require.NoError(t, d.Remove())
	}
	d, err := tempdir.Create(os.TempDir(), dirPrefix)
	require.NoError(t, err)
	t.Cleanup(func() { d.Remove() })
	r := &Runtime{runc: runc, dir: d.Path, images: map[string]*pulled{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// dirPrefix starts the name of a runtime's directory.
const dirPrefix = "podrun-"

// reap kills and deletes the containers of an abandoned runtime directory
// and unpins its pods' network namespaces.
func reap(runc, dir string) {
	root := filepath.Join(dir, "runc")
	out, _ := exec.Command(runc, "--root", root, "list", "-q").Output()
	for _, id := range strings.Fields(string(out)) {
		_ = exec.Command(runc, "--root", root, "delete", "--force", id).Run()
	}
	pinned, _ := filepath.Glob(filepath.Join(dir, "*", "netns"))
	for _, p := range pinned {
		_ = unix.Unmount(p, unix.MNT_DETACH)
	}
}

// runcCmd is runc with the runtime's state root.
func (r *Runtime) runcCmd(ctx context.Context, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, r.runc, append([]string{"--root", filepath.Join(r.dir, "runc")}, args...)...)
}

// suffix is a random name suffix, as generateName's.
func suffix() string {
	var b [3]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])[:5]
}

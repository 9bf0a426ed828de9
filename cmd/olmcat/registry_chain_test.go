package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
	"github.com/operator-catalog/olmcat/internal/writelock"
	"github.com/operator-catalog/olmcat/registry/api"
)

// TestRegistryAddThenServe runs operator-sdk's registry pod chain with
// the real binary, `registry add -d PATH -b B --mode semver && registry
// serve -d PATH`: on a PATH that names nothing (a new catalog directory
// is made there) and on an existing catalog directory (updated in
// place); a gRPC call over loopback then shows the bundle added.
func TestRegistryAddThenServe(t *testing.T) {
	bin := buildBinary(t)
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	bundle := pushBundleImage(t, reg, "bundles/foo:v0.3.1", filepath.Join(fixtureBundles, foo031))
	for _, tc := range []struct {
		name string
		path func(t *testing.T) string
		kept string // a bundle the catalog had, still served
	}{
		{"new index.db", func(t *testing.T) string { return filepath.Join(t.TempDir(), "x", "index.db") }, ""},
		{"catalog directory", func(t *testing.T) string {
			dir := filepath.Join(t.TempDir(), "catalog")
			require.NoError(t, os.CopyFS(dir, os.DirFS("../../fixtures/legacy/opreg-foo-index/opm-migrate")))
			return dir
		}, "foo.v0.2.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.path(t)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			stderr, code := runBinary(t, bin, append([]string{"registry", "add", "-d", path, "-b", bundle, "--mode", "semver"}, flags...)...)
			require.Equal(t, 0, code, stderr)
			require.DirExists(t, path)
			conn := serveBinary(t, bin, "registry", "serve", "-d", path, "-p", "0")
			ctx := context.Background()
			client := api.NewRegistryClient(conn)
			b, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: "foo", ChannelName: "beta", CsvName: "foo.v0.3.1"})
			require.NoError(t, err)
			require.Equal(t, bundle, b.GetBundlePath())
			if tc.kept != "" {
				b, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: "foo", ChannelName: "beta", CsvName: tc.kept})
				require.NoError(t, err)
				require.Equal(t, tc.kept, b.GetCsvName())
			}
		})
	}
}

// serveBinary starts bin with args (a server on a free port), waits for
// its "serving on" line and returns a connection to it; the process is
// killed when the test ends.
func serveBinary(t *testing.T, bin string, args ...string) *grpc.ClientConn {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	var addr string
	require.Eventually(t, func() bool {
		m := servingOn.FindStringSubmatch(stderr.String())
		if m != nil {
			addr = strings.Replace(m[1], "[::]", "127.0.0.1", 1)
		}
		return m != nil
	}, 60*time.Second, 20*time.Millisecond, "not serving: %s", stderr.String())
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// TestRegistryInPlace: without --output, registry commands update a
// catalog directory -d in place, all or nothing: a failed command or a
// directory holding more than package folders leaves it as it was; a
// sqlite file -d is never written (exit 2).
func TestRegistryInPlace(t *testing.T) {
	t.Setenv(noDeprecationWarningEnv, "1")
	img := fixtureImages(t, "small-fbb")["foo.v0.2.0"]
	for _, tc := range []struct {
		name  string
		args  []string
		extra string // a file put in the directory first
		code  int
		want  []string // the package folders after
		msg   string
	}{
		{"prune", []string{"prune", "-p", "foo"}, "", 0, []string{"foo"}, "pruned package bar"},
		{"deprecatetruncate", []string{"deprecatetruncate", "-b", img}, "", 0, []string{"bar", "baz", "foo"}, "deprecated bundle foo.v0.2.0"},
		{"rm unknown package", []string{"rm", "-o", "nosuch"}, "", exitInvalid, nil, "no package found for packagename nosuch"},
		{"foreign file", []string{"prune-stranded"}, "README.md", exitUsage, nil, "holds README.md, which is no catalog file"},
		{"foreign file in a package folder", []string{"prune-stranded"}, "foo/icon.png", exitUsage, nil, "holds foo/icon.png, which is no catalog file"},
		{"ignored file", []string{"prune-stranded"}, "bar/.indexignore", exitUsage, nil, "holds bar/.indexignore, which is no catalog file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "catalog")
			require.NoError(t, os.CopyFS(dir, os.DirFS("../../fixtures/legacy/small-fbb/opm-migrate")))
			if tc.extra != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, tc.extra), []byte("x"), 0o644))
			}
			before := snapshotTree(t, filepath.Dir(dir))
			_, stderr, code := runCLI(t, append([]string{"registry", tc.args[0], "-d", dir}, tc.args[1:]...)...)
			require.Equal(t, tc.code, code, stderr)
			require.Contains(t, stderr, tc.msg)
			if tc.code != 0 {
				require.Equal(t, before, snapshotTree(t, filepath.Dir(dir)), "nothing written")
				return
			}
			ents, err := os.ReadDir(filepath.Dir(dir))
			require.NoError(t, err)
			require.Len(t, ents, 1, "no temporary directory left")
			ents, err = os.ReadDir(dir)
			require.NoError(t, err)
			var got []string
			for _, e := range ents {
				got = append(got, e.Name())
			}
			require.Equal(t, tc.want, got)
			_, stderr, code = runCLI(t, "validate", dir)
			require.Equal(t, 0, code, stderr)
		})
	}
	db := filepath.Join(t.TempDir(), "index.db")
	copyFile(t, "../../fixtures/legacy/small-fbb/index.db", db)
	before := snapshotTree(t, filepath.Dir(db))
	_, stderr, code := runCLI(t, "registry", "prune-stranded", "-d", db)
	require.Equal(t, exitUsage, code, stderr)
	require.Contains(t, stderr, "writes no sqlite database: pass --output DIR")
	require.Equal(t, before, snapshotTree(t, filepath.Dir(db)))
	// A new catalog directory needs its parent, as opm's new database did.
	nowhere := filepath.Join(t.TempDir(), "no", "index.db")
	_, stderr, code = runCLI(t, "registry", "prune-stranded", "-d", nowhere)
	require.Equal(t, exitInvalid, code, stderr)
	require.Contains(t, stderr, "--database "+nowhere)
	require.NoDirExists(t, filepath.Dir(nowhere))
}

// TestRegistryInPlaceTakesTheWriteLock: a registry command updating a
// catalog directory in place takes its write lock before reading it:
// while another process holds it, --wait-lock 0 fails at once with exit
// 1, naming the holder, and the directory is left as it was.
func TestRegistryInPlaceTakesTheWriteLock(t *testing.T) {
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, os.CopyFS(dir, os.DirFS("../../fixtures/legacy/small-fbb/opm-migrate")))
	lock, err := writelock.Acquire(context.Background(), dir, writelock.Options{})
	require.NoError(t, err)
	defer lock.Release()
	before := snapshotTree(t, dir)
	stderr, code := runBinary(t, bin, "registry", "prune", "-d", dir, "-p", "foo", "--wait-lock", "0", "--no-deprecation-warning")
	require.Equal(t, exitInvalid, code, stderr)
	require.Contains(t, stderr, "is being written by process")
	require.Equal(t, before, snapshotTree(t, dir))
}

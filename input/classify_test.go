package input_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/input"
)

// TestClassifyNote: a local path that also reads as an image reference is
// the path, with a note saying how to name the image.
func TestClassifyNote(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.MkdirAll("localhost/index", 0o755))
	in, err := input.Classify("localhost/index")
	require.NoError(t, err)
	require.Equal(t, input.KindDeclcfg, in.Kind)
	require.Equal(t, "localhost/index is a local path and also reads as an image reference; using the local path (write docker://localhost/index for the image)", in.Note)
}

func TestClassify(t *testing.T) {
	dir := t.TempDir()
	blob := filepath.Join(dir, "catalog.json")
	require.NoError(t, os.WriteFile(blob, []byte(`{"schema":"olm.package","name":"foo"}`), 0o644))
	short := filepath.Join(dir, "short.db")
	require.NoError(t, os.WriteFile(short, []byte("SQLite"), 0o644))
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	for _, tc := range []struct {
		name, ref string
		kind      input.Kind
		addr      string
		err       string
	}{
		{name: "declarative config dir", ref: "../fixtures/legacy/small-fbb/opm-migrate", kind: input.KindDeclcfg},
		{name: "sqlite index", ref: "../fixtures/legacy/small-fbb/index.db", kind: input.KindSQLite},
		{name: "blob file", ref: blob, kind: input.KindDeclcfgFile},
		{name: "file shorter than the sqlite header", ref: short, kind: input.KindDeclcfgFile},
		{name: "live server", ref: "grpc://127.0.0.1:50051", kind: input.KindGRPC, addr: "127.0.0.1:50051"},
		{name: "live server without address", ref: "grpc://", err: "missing host:port"},
		{name: "catalogd base URL", ref: "http://127.0.0.1:8080/catalogs/ops/", kind: input.KindCatalogd, addr: "http://127.0.0.1:8080/catalogs/ops"},
		{name: "catalogd over TLS", ref: "HTTPS://catalogd.test/catalogs/ops", kind: input.KindCatalogd, addr: "HTTPS://catalogd.test/catalogs/ops"},
		{name: "catalogd URL without host", ref: "http:///catalogs/ops", err: "not a catalogd base URL"},
		{name: "missing", ref: filepath.Join(dir, "missing"), err: "no such file"},
		{name: "named pipe (not opened)", ref: fifo, err: "not a directory or regular file"},
		{name: "image reference", ref: "catalogs.test/ns/index:v4.14", kind: input.KindImage},
		{name: "image reference on a port", ref: "localhost:5000/index@sha256:" + strings.Repeat("0", 64), kind: input.KindImage},
		{name: "forced image reference", ref: "docker://catalogs.test/ns/index:v1", kind: input.KindImage},
		{name: "unqualified name is a missing path", ref: "index:v1", err: "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in, err := input.Classify(tc.ref)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.ref, in.Ref)
			require.Equal(t, tc.kind, in.Kind)
			require.Equal(t, tc.addr, in.Addr)
			require.Equal(t, tc.kind == input.KindImage, in.Path == "")
			if tc.kind == input.KindImage {
				require.Equal(t, strings.TrimPrefix(tc.ref, "docker://"), in.Image)
			}
		})
	}
}

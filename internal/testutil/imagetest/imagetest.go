// Package imagetest runs go-containerregistry's in-process registry on a
// loopback httptest server and builds small images from files, for tests
// of everything that pulls images. Nothing it starts listens beyond
// loopback.
package imagetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/require"
)

// Registry is a running loopback registry that counts blob requests.
type Registry struct {
	// Host is host:port of the registry (127.0.0.1:N).
	Host string
	// Server is the underlying test server.
	Server *httptest.Server
	// User and Password, when set, are required by every /v2/ request.
	User, Password string

	mu    sync.Mutex
	blobs map[string]int
	conns int

	blobDelay   time.Duration
	altLoopback bool
}

// Option configures a Registry.
type Option func(*Registry, *bool)

// WithBasicAuth makes the registry require these credentials.
func WithBasicAuth(user, password string) Option {
	return func(r *Registry, _ *bool) { r.User, r.Password = user, password }
}

// WithTLS serves HTTPS with a certificate from a test CA (CAFile writes it).
func WithTLS() Option { return func(_ *Registry, tls *bool) { *tls = true } }

// WithBlobDelay holds every blob GET for d before answering (a slow
// registry).
func WithBlobDelay(d time.Duration) Option {
	return func(r *Registry, _ *bool) { r.blobDelay = d }
}

// OnAltLoopback listens on 127.0.0.2: still loopback, but not an address
// go-containerregistry takes for a local registry, so it is reached over
// HTTPS unless told otherwise (as a remote plain-HTTP registry is).
func OnAltLoopback() Option { return func(r *Registry, _ *bool) { r.altLoopback = true } }

// New starts a registry; it stops when the test ends.
func New(t testing.TB, opts ...Option) *Registry {
	t.Helper()
	r := &Registry{blobs: map[string]int{}}
	useTLS := false
	for _, o := range opts {
		o(r, &useTLS)
	}
	inner := registry.New(registry.Logger(nopLogger()))
	h := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.User != "" {
			u, p, ok := req.BasicAuth()
			if !ok || u != r.User || p != r.Password {
				w.Header().Set("WWW-Authenticate", `Basic realm="imagetest"`)
				http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
				return
			}
		}
		if req.Method == http.MethodGet {
			if i := strings.Index(req.URL.Path, "/blobs/"); i >= 0 {
				r.mu.Lock()
				r.blobs[req.URL.Path[i+len("/blobs/"):]]++
				r.mu.Unlock()
				if r.blobDelay > 0 {
					select {
					case <-time.After(r.blobDelay):
					case <-req.Context().Done():
						return
					}
				}
			}
		}
		inner.ServeHTTP(w, req)
	})
	r.Server = httptest.NewUnstartedServer(h)
	r.Server.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.mu.Lock()
			r.conns++
			r.mu.Unlock()
		}
	}
	if r.altLoopback {
		l, err := net.Listen("tcp", "127.0.0.2:0")
		require.NoError(t, err)
		r.Server.Listener.Close()
		r.Server.Listener = l
	}
	if useTLS {
		r.Server.StartTLS()
	} else {
		r.Server.Start()
	}
	t.Cleanup(r.Server.Close)
	r.Host = strings.TrimPrefix(strings.TrimPrefix(r.Server.URL, "http://"), "https://")
	return r
}

// BlobGets is how many GETs the blob with this digest ("sha256:...") had.
func (r *Registry) BlobGets(digest string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.blobs[digest]
}

// Conns is how many connections the registry accepted.
func (r *Registry) Conns() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.conns
}

// CAFile writes the TLS server's certificate (its own CA) as PEM in dir.
func (r *Registry) CAFile(t testing.TB, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "ca.pem")
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: r.Server.Certificate().Raw})
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// Push writes img (or an index) as host/repo:tag and returns the full ref.
func (r *Registry) Push(t testing.TB, repoTag string, img any) string {
	t.Helper()
	ref := r.Host + "/" + repoTag
	nref, err := name.ParseReference(ref, name.Insecure)
	require.NoError(t, err)
	ro := []remote.Option{remote.WithTransport(r.Server.Client().Transport)}
	if r.User != "" {
		ro = append(ro, remote.WithAuth(basic{r.User, r.Password}))
	}
	switch v := img.(type) {
	case v1.Image:
		err = remote.Write(nref, v, ro...)
	case v1.ImageIndex:
		err = remote.WriteIndex(nref, v, ro...)
	default:
		require.Failf(t, "Push: neither an image nor an index", "%T", img)
	}
	require.NoError(t, err, "push %s", ref)
	return ref
}

// Entry is one tar entry of a test layer.
type Entry struct {
	Name     string
	Body     string
	Type     byte // tar.TypeReg when zero
	Linkname string
}

// Layer builds a gzip layer from entries, in the given order.
func Layer(t testing.TB, entries ...Entry) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.Name, Typeflag: e.Type, Linkname: e.Linkname, Mode: 0o644, ModTime: time.Unix(0, 0)}
		if hdr.Typeflag == 0 {
			hdr.Typeflag = tar.TypeReg
		}
		if hdr.Typeflag == tar.TypeReg {
			hdr.Size = int64(len(e.Body))
		}
		if hdr.Typeflag == tar.TypeDir {
			hdr.Mode = 0o755
		}
		require.NoError(t, tw.WriteHeader(hdr))
		if hdr.Typeflag == tar.TypeReg {
			_, err := tw.Write([]byte(e.Body))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	data := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	require.NoError(t, err)
	return l
}

// DirLayer builds a layer holding the files below src at the image path
// dest (sorted, so the same files give the same layer).
func DirLayer(t testing.TB, src, dest string) v1.Layer {
	t.Helper()
	var entries []Entry
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		n := filepath.ToSlash(filepath.Join(dest, rel))
		switch {
		case info.IsDir():
			entries = append(entries, Entry{Name: n + "/", Type: tar.TypeDir})
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			entries = append(entries, Entry{Name: n, Body: string(data)})
		}
		return nil
	})
	require.NoError(t, err)
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name < entries[j].Name })
	return Layer(t, entries...)
}

// Image builds an image from layers with these labels, for linux/amd64
// unless platform says otherwise.
func Image(t testing.TB, labels map[string]string, platform *v1.Platform, layers ...v1.Layer) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layers...)
	require.NoError(t, err)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	cf = cf.DeepCopy()
	cf.Config.Labels = labels
	cf.OS, cf.Architecture = "linux", "amd64"
	if platform != nil {
		cf.OS, cf.Architecture, cf.Variant = platform.OS, platform.Architecture, platform.Variant
	}
	img, err = mutate.ConfigFile(img, cf)
	require.NoError(t, err)
	return img
}

// Index builds an image index of images, each with its config's platform.
func Index(t testing.TB, imgs ...v1.Image) v1.ImageIndex {
	t.Helper()
	var adds []mutate.IndexAddendum
	for _, img := range imgs {
		cf, err := img.ConfigFile()
		require.NoError(t, err)
		adds = append(adds, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: cf.OS, Architecture: cf.Architecture, Variant: cf.Variant}}})
	}
	return mutate.AppendManifests(empty.Index, adds...)
}

// ZerosLayer is a gzip layer holding one file of n zero bytes: a gzip
// bomb, about a thousandth of n once compressed.
func ZerosLayer(t testing.TB, name string, n int64) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	tw := tar.NewWriter(zw)
	require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: n}))
	_, err := io.Copy(tw, io.LimitReader(zeros{}, n))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, zw.Close())
	return GzipLayer(t, buf.Bytes())
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) {
	clear(b)
	return len(b), nil
}

// GzipLayer is a layer of already compressed bytes, taken as they are.
func GzipLayer(t testing.TB, gz []byte) v1.Layer {
	t.Helper()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(gz)), nil })
	require.NoError(t, err)
	return l
}

// ArchiveDir writes the files below dir as the tar archive file (an
// OCI archive when dir is an OCI layout) and returns file.
func ArchiveDir(t testing.TB, dir, file string) string {
	t.Helper()
	out, err := os.Create(file)
	require.NoError(t, err)
	tw := tar.NewWriter(out)
	require.NoError(t, tw.AddFS(os.DirFS(dir)))
	require.NoError(t, tw.Close())
	require.NoError(t, out.Close())
	return file
}

// GNUSparseLayer is a gzip layer holding name as an old GNU sparse file
// (type 'S', what GNU tar -S writes) of realSize bytes that are all
// holes: no data block at all, whatever realSize is. archive/tar cannot
// write one, so the header block is made here.
func GNUSparseLayer(t testing.TB, name string, realSize int64) v1.Layer {
	t.Helper()
	b := make([]byte, 512)
	copy(b[0:100], name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], "00000000000\x00") // no data stored
	copy(b[136:], "00000000000\x00")
	b[156] = tar.TypeGNUSparse
	copy(b[257:], "ustar  \x00")                  // GNU magic and version
	copy(b[483:], fmt.Sprintf("%012o", realSize)) // realsize; no sparse data entries
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, err := zw.Write(append(b, make([]byte, 1024)...))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return GzipLayer(t, buf.Bytes())
}

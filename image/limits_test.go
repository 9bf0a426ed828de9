package image_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// rawHeader is a ustar header block; archive/tar cannot write the sparse
// entries tests need.
func rawHeader(name string, typ byte, size int64) []byte {
	b := make([]byte, 512)
	copy(b[0:100], name)
	copy(b[100:], "0000644\x00")
	copy(b[108:], "0000000\x00")
	copy(b[116:], "0000000\x00")
	copy(b[124:], fmt.Sprintf("%011o\x00", size))
	copy(b[136:], fmt.Sprintf("%011o\x00", 0))
	b[156] = typ
	copy(b[257:], "ustar\x0000")
	copy(b[148:], "        ")
	sum := 0
	for _, c := range b {
		sum += int(c)
	}
	copy(b[148:], fmt.Sprintf("%06o\x00 ", sum))
	return b
}

func paxRecord(k, v string) string {
	body := " " + k + "=" + v + "\n"
	n := len(body) + len(strconv.Itoa(len(body)))
	if len(strconv.Itoa(n)) != len(strconv.Itoa(len(body))) {
		n++
	}
	return strconv.Itoa(n) + body
}

func pad(b []byte) []byte { return append(b, make([]byte, (512-len(b)%512)%512)...) }

// sparseLayer is a gzip layer holding name as a PAX (GNU 0.1) sparse file
// of realSize bytes: 512 bytes of data ("data") at offset 0, the rest a
// hole. The layer is a few hundred bytes whatever realSize is.
func sparseLayer(t *testing.T, name string, realSize int64) v1.Layer {
	t.Helper()
	recs := paxRecord("GNU.sparse.numblocks", "1") + paxRecord("GNU.sparse.map", "0,512") + paxRecord("GNU.sparse.size", strconv.FormatInt(realSize, 10)) +
		paxRecord("GNU.sparse.name", name)
	var raw []byte
	raw = append(raw, rawHeader("PaxHeaders/sparse", tar.TypeXHeader, int64(len(recs)))...)
	raw = append(raw, pad([]byte(recs))...)
	raw = append(raw, rawHeader("sparse-placeholder", tar.TypeReg, 512)...)
	raw = append(raw, pad([]byte("data"))...)
	raw = append(raw, make([]byte, 1024)...)
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	return imagetest.GzipLayer(t, buf.Bytes())
}

// TestExtractCatalogLimits: each limit stops a hostile image with an
// error naming the limit, the layer digest and the entry, and leaves
// nothing behind.
func TestExtractCatalogLimits(t *testing.T) {
	reg := imagetest.New(t)
	slow := imagetest.New(t, imagetest.WithBlobDelay(5*time.Second))
	bomb := imagetest.ZerosLayer(t, "configs/bomb.json", 100<<20)
	many := imagetest.Layer(t, E{Name: "configs/a.json", Body: "{}"}, E{Name: "configs/b.json", Body: "{}"}, E{Name: "configs/c.json", Body: "{}"})
	big := imagetest.Layer(t, E{Name: "configs/a.json", Body: strings.Repeat("a", 600)}, E{Name: "configs/b.json", Body: strings.Repeat("b", 600)})
	for _, tc := range []struct {
		name   string
		reg    *imagetest.Registry
		layer  v1.Layer
		limits image.Limits
		kind   image.LimitKind
		entry  string
		msg    string
	}{
		{"gzip bomb", reg, bomb, image.Limits{}, image.LimitRatio, "configs/bomb.json", "decompression bomb"},
		{"50 GB sparse file", reg, sparseLayer(t, "configs/sparse.json", 50<<30), image.Limits{}, image.LimitFileBytes, "configs/sparse.json", "50.0 GiB would exceed the bytes per file limit of 4.0 GiB"},
		{"50 GB GNU sparse file (tar -S), all holes", reg, imagetest.GNUSparseLayer(t, "configs/foo/huge.json", 50<<30), image.Limits{}, image.LimitFileBytes, "configs/foo/huge.json", "50.0 GiB would exceed the bytes per file limit of 4.0 GiB"},
		{"GNU sparse file over the total", reg, imagetest.GNUSparseLayer(t, "configs/foo/huge.json", 1<<20), image.Limits{MaxBytes: 1000}, image.LimitBytes, "configs/foo/huge.json", "1.0 MiB would exceed the total bytes limit of 1000 bytes"},
		{"too many files", reg, many, image.Limits{MaxFiles: 2}, image.LimitFiles, "configs/c.json", "more than 2 files"},
		{"too many bytes", reg, big, image.Limits{MaxBytes: 1000}, image.LimitBytes, "configs/b.json", "1.2 KiB would exceed the total bytes limit of 1000 bytes"},
		{"file too big", reg, big, image.Limits{MaxFileBytes: 500}, image.LimitFileBytes, "configs/a.json", "600 bytes would exceed the bytes per file limit of 500 bytes"},
		{"slow registry", slow, many, image.Limits{Timeout: 300 * time.Millisecond}, image.LimitTime, "", "not read within the 300ms time limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ref := tc.reg.Push(t, "limits:v1", imagetest.Image(t, configsLabels, nil, tc.layer))
			tmp := t.TempDir()
			_, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, tmp, image.WithLimits(tc.limits))...)
			var le *image.LimitError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tc.kind, le.Kind)
			assert.Equal(t, tc.entry, le.Entry)
			assert.ErrorContains(t, err, tc.msg)
			if tc.kind != image.LimitTime { // struck while reading the config
				d, _ := tc.layer.Digest()
				assert.ErrorContains(t, err, d.String(), "the error names the layer")
			}
			if tc.entry != "" {
				assert.ErrorContains(t, err, "entry "+tc.entry)
			}
			assertEmpty(t, tmp)
		})
	}
}

// TestExtractCatalogSparseFileStaysSparse: a sparse file within the
// limits is written with its holes as holes, not as zeros on disk.
func TestExtractCatalogSparseFileStaysSparse(t *testing.T) {
	reg := imagetest.New(t)
	const size = 256 << 20
	ref := reg.Push(t, "sparse:v1", imagetest.Image(t, configsLabels, nil, sparseLayer(t, "configs/sparse.bin", size)))
	u, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, t.TempDir())...)
	require.NoError(t, err)
	defer u.Close()
	p := filepath.Join(u.Local, "sparse.bin")
	st, err := os.Stat(p)
	require.NoError(t, err)
	assert.EqualValues(t, size, st.Size())
	assert.Less(t, st.Sys().(*syscall.Stat_t).Blocks*512, int64(1<<20), "the 256 MiB hole was written as zeros")
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	head := make([]byte, 4)
	_, err = io.ReadFull(f, head)
	require.NoError(t, err)
	assert.Equal(t, "data", string(head))
}

// TestExtractCatalogCacheVerified: a cached layer edited on disk is never
// served: it is noted, removed, fetched again and the image's own content
// extracted.
func TestExtractCatalogCacheVerified(t *testing.T) {
	reg := imagetest.New(t)
	good := imagetest.Layer(t, E{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"good"}`})
	evil := imagetest.Layer(t, E{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"evil"}`})
	ref := reg.Push(t, "cached:v1", imagetest.Image(t, configsLabels, nil, good))
	cache := t.TempDir()
	d, _ := good.Digest()
	blob := filepath.Join(cache, "blobs", "sha256", d.Hex)
	read := func() (string, []string) {
		var notes []string
		u, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, t.TempDir(), image.WithCacheDir(cache),
			image.WithNotes(func(s string) { notes = append(notes, s) }))...)
		require.NoError(t, err)
		defer u.Close()
		data, err := os.ReadFile(filepath.Join(u.Local, "a.json"))
		require.NoError(t, err)
		return string(data), notes
	}
	got, notes := read()
	require.Contains(t, got, "good")
	require.Empty(t, notes)

	rc, err := evil.Compressed()
	require.NoError(t, err)
	evilBytes, err := io.ReadAll(rc)
	require.NoError(t, err)
	goodSize, err := good.Size()
	require.NoError(t, err)
	for _, edit := range []struct {
		name string
		data []byte
	}{
		{"another layer", evilBytes},
		{"same size", bytes.Repeat([]byte{0}, int(goodSize))},
	} {
		t.Run(edit.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(blob, edit.data, 0o644))
			before := reg.BlobGets(d.String())
			got, notes := read()
			assert.Contains(t, got, "good", "the edited cache blob was served")
			require.Len(t, notes, 1)
			assert.Contains(t, notes[0], "cached layer "+d.String()+" was damaged")
			assert.Equal(t, before+1, reg.BlobGets(d.String()), "the layer is fetched again")
			fixed, err := os.ReadFile(blob)
			require.NoError(t, err)
			want, _ := good.Compressed()
			wantBytes, _ := io.ReadAll(want)
			assert.Equal(t, wantBytes, fixed, "the cache holds the right blob again")
		})
	}
}

// TestLayerCacheSweepsAbandonedDownloads: a layer download killed before
// it was verified leaves its marked directory unlocked in the cache's
// blob directory; the next run that uses the cache removes it and says
// so, and a finished download leaves nothing beside the blobs.
func TestLayerCacheSweepsAbandonedDownloads(t *testing.T) {
	reg := imagetest.New(t)
	layer := imagetest.Layer(t, E{Name: "configs/a.json", Body: `{"schema":"olm.package","name":"a"}`})
	ref := reg.Push(t, "partial:v1", imagetest.Image(t, configsLabels, nil, layer))
	cache := t.TempDir()
	blobs := filepath.Join(cache, "blobs", "sha256")
	require.NoError(t, os.MkdirAll(blobs, 0o755))
	killed, err := tempdir.Create(blobs, ".partial-")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(killed.Path, "blob"), []byte("half a layer"), 0o644))
	killed.Release() // as the kernel does when the process dies

	var notes []string
	u, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, t.TempDir(), image.WithCacheDir(cache),
		image.WithNotes(func(s string) { notes = append(notes, s) }))...)
	require.NoError(t, err)
	require.NoError(t, u.Close())
	assert.NoDirExists(t, killed.Path)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "removed abandoned temporary directory "+killed.Path)
	ents, err := os.ReadDir(blobs)
	require.NoError(t, err)
	d, err := layer.Digest()
	require.NoError(t, err)
	require.Len(t, ents, 1, "only the verified blob")
	assert.Equal(t, d.Hex, ents[0].Name())
}

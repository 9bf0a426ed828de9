package declcfgquery

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// blobForms writes one catalog in every form a file can take: plain JSON
// (blob ranges noted by the load), JSON after a byte order mark and YAML
// (ranges found on first read, or the stream decoded).
var blobForms = []struct {
	name   string
	file   string
	ranged bool
	write  func(t *testing.T, cfg *declcfg.DeclarativeConfig) []byte
}{
	{"JSON", "catalog.json", true, func(t *testing.T, cfg *declcfg.DeclarativeConfig) []byte {
		var buf bytes.Buffer
		require.NoError(t, declcfg.WriteJSON(&buf, cfg))
		return buf.Bytes()
	}},
	{"JSON with a byte order mark", "catalog.json", false, func(t *testing.T, cfg *declcfg.DeclarativeConfig) []byte {
		buf := bytes.NewBufferString("\uFEFF")
		require.NoError(t, declcfg.WriteJSON(buf, cfg))
		return buf.Bytes()
	}},
	{"YAML", "catalog.yaml", false, func(t *testing.T, cfg *declcfg.DeclarativeConfig) []byte {
		var buf bytes.Buffer
		require.NoError(t, declcfg.WriteYAML(&buf, cfg))
		return buf.Bytes()
	}},
}

// blobFormDir writes the small fixture catalog in form f to a new dir.
func blobFormDir(t *testing.T, f int) string {
	t.Helper()
	cfg, err := declcfg.LoadDir(context.Background(), "../../fixtures/legacy/small-fbb/opm-migrate")
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, blobForms[f].file), blobForms[f].write(t, cfg), 0o644))
	return dir
}

// TestBlobRangesServeTheBlobs: in every file form, bundles are served
// exactly as the model serves them; plain JSON blobs by the range the
// load noted, the others as before (found on first read, or decoded from
// the stream).
func TestBlobRangesServeTheBlobs(t *testing.T) {
	ctx := context.Background()
	for f, form := range blobForms {
		t.Run(form.name, func(t *testing.T) {
			full, lean := fullAndLean(t, blobFormDir(t, f))
			src := lean.src.(*fileSource)
			require.NotEmpty(t, src.refs)
			require.NotEmpty(t, src.pkgRefs)
			for _, r := range src.refs {
				require.Equal(t, form.ranged, r.Len > 0, "blob #%d ranged", r.Index)
			}
			for _, r := range src.pkgRefs {
				require.Equal(t, form.ranged, r.Len > 0, "blob #%d ranged", r.Index)
			}
			require.Nil(t, src.loaded, "the load's ranges are dropped once in the refs")
			for _, b := range CollectBundles(t, full) {
				want, err := full.GetBundle(ctx, b.PackageName, b.ChannelName, b.CsvName)
				require.NoError(t, err)
				got, err := lean.GetBundle(ctx, b.PackageName, b.ChannelName, b.CsvName)
				require.NoError(t, err)
				require.True(t, proto.Equal(want, got), "GetBundle %s", b.CsvName)
			}
		})
	}
}

// TestBlobRangesFileChanged: in every file form, a file changed after the
// load fails the calls that read it, never serves other bytes: a stamp
// that differs with the error saying so, and a hostile rewrite that keeps
// size and modification time with whatever error the bytes give.
func TestBlobRangesFileChanged(t *testing.T) {
	ctx := context.Background()
	for f, form := range blobForms {
		for _, change := range []struct {
			name    string
			rewrite func(t *testing.T, path string, data []byte, mod time.Time)
			wantErr string
		}{
			{"appended to", func(t *testing.T, path string, data []byte, mod time.Time) {
				require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
			}, "changed since the catalog was loaded"},
			{"same size and time", func(t *testing.T, path string, data []byte, mod time.Time) {
				require.NoError(t, os.WriteFile(path, bytes.Repeat([]byte(" "), len(data)), 0o644))
				require.NoError(t, os.Chtimes(path, mod, mod))
			}, `read manifests of bundle "foo.v0.2.0"`},
		} {
			t.Run(form.name+"/"+change.name, func(t *testing.T) {
				dir := blobFormDir(t, f)
				q, err := loadFromFiles(ctx, dir)
				require.NoError(t, err)
				path := filepath.Join(dir, form.file)
				data, err := os.ReadFile(path)
				require.NoError(t, err)
				st, err := os.Stat(path)
				require.NoError(t, err)
				change.rewrite(t, path, data, st.ModTime())
				_, err = q.GetBundle(ctx, "foo", "beta", "foo.v0.2.0")
				require.ErrorContains(t, err, change.wantErr)
			})
		}
	}
}

// TestStampIsTheLoadsRead: a file's stamp is the one the load took as it
// read the file, not a stat when its package's turn comes: a write in
// between fails the calls that read the file, as a write after the load
// does, instead of serving bytes that were never validated.
func TestStampIsTheLoadsRead(t *testing.T) {
	for f, form := range blobForms {
		t.Run(form.name, func(t *testing.T) {
			dir := blobFormDir(t, f)
			path := filepath.Join(dir, form.file)
			st, err := os.Stat(path)
			require.NoError(t, err)
			src := newFileSource(dir)
			src.noteRead(declcfg.FileRead{File: form.file, Size: st.Size(), ModTime: st.ModTime()})
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, append(data, '\n'), 0o644))
			r, err := src.ref(declcfg.Origin{File: form.file, Index: 0})
			require.NoError(t, err)
			err = src.checkFile(r.File)
			require.ErrorContains(t, err, "changed since the catalog was loaded")
		})
	}
}

// TestSnapshotBlobRanges: a snapshot whose blob range reaches past its
// file as stamped is refused (a served blob is read by its range alone).
func TestSnapshotBlobRanges(t *testing.T) {
	files := []snapshotFile{{Path: "a.json", Size: 100}}
	for _, tc := range []struct {
		name string
		ref  blobRef
		ok   bool
	}{
		{"no range", blobRef{File: 0, Index: 3}, true},
		{"inside", blobRef{File: 0, Index: 1, Off: 10, Len: 90}, true},
		{"past the end", blobRef{File: 0, Index: 1, Off: 10, Len: 91}, false},
		{"huge", blobRef{File: 0, Index: 1, Off: 1 << 31, Len: 1 << 31}, false},
		{"no such file", blobRef{File: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.ok, refsIn(files, []blobRef{tc.ref}))
		})
	}
}

// TestBundleManifests: the manifests a blob read back serves, alone: its
// own CSV (one string with its object), or one synthesized from its
// olm.csv.metadata with the version given, or none.
func TestBundleManifests(t *testing.T) {
	csv := `{"kind":"ClusterServiceVersion","metadata":{"name":"p.v1"}}`
	meta := declcfg.Property{Type: declcfg.PropertyCSVMetadata, Value: []byte(`{"displayName":"P"}`)}
	for _, tc := range []struct {
		name     string
		b        model.Bundle
		csvMeta  []declcfg.Property
		wantCSV  string // "synthetic": contains the version
		wantObjs int
	}{
		{"own CSV", model.Bundle{Name: "p.v1", CsvJSON: csv, Objects: []string{`{"kind":"ConfigMap"}`, csv}}, nil, csv, 2},
		{"own CSV wins over metadata", model.Bundle{Name: "p.v1", CsvJSON: csv, Objects: []string{csv}}, []declcfg.Property{meta}, csv, 1},
		{"synthetic", model.Bundle{Name: "p.v1"}, []declcfg.Property{meta}, "synthetic", 1},
		{"two metadata: none", model.Bundle{Name: "p.v1"}, []declcfg.Property{meta, meta}, "", 0},
		{"nothing", model.Bundle{Name: "p.v1"}, nil, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gotCSV, objs, err := bundleManifests(&tc.b, tc.csvMeta, "1.2.3")
			require.NoError(t, err)
			require.Len(t, objs, tc.wantObjs)
			if tc.wantCSV == "synthetic" {
				require.Contains(t, gotCSV, `"version":"1.2.3"`)
				require.Equal(t, gotCSV, objs[0], "the synthetic CSV is the one object")
				return
			}
			require.Equal(t, tc.wantCSV, gotCSV)
			if gotCSV != "" {
				require.Equal(t, unsafe.StringData(objs[len(objs)-1]), unsafe.StringData(gotCSV), "the CSV's text is held once")
			}
		})
	}
	_, _, err := bundleManifests(&model.Bundle{Name: "p.v1"}, []declcfg.Property{{Type: declcfg.PropertyCSVMetadata, Value: []byte(`[]`)}}, "1")
	require.ErrorContains(t, err, `bundle "p.v1": `)
}

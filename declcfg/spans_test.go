package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWithFileReads: every decoded file is reported with its stamp; the
// ranges are each blob's bytes in its file, in blob order, for plain JSON
// files only; by LoadDir (with and without a package filter) and by
// EachPackage alike.
func TestWithFileReads(t *testing.T) {
	a, b := `{"schema":"olm.package","name":"a"}`, "{\n  \"schema\": \"olm.package\",\n  \"name\": \"b\"\n}"
	ch := `{"schema":"olm.channel","package":"a","name":"s","entries":[{"name":"a.v1"}]}`
	for _, tc := range []struct {
		name    string
		file    string
		content string
		blobs   []string // nil: not reported
	}{
		{name: "compact", file: "c.json", content: a + ch, blobs: []string{a, ch}},
		{name: "indented, blank lines first", file: "c.json", content: "\n\n  " + b + "\n\n" + ch + "\n", blobs: []string{b, ch}},
		{name: "JSON in a .yaml file", file: "c.yaml", content: a + "\n" + ch + "\n", blobs: []string{a, ch}},
		{name: "byte order mark", file: "c.json", content: "\uFEFF" + a + "\n" + ch + "\n"},
		{name: "YAML", file: "c.yaml", content: "schema: olm.package\nname: a\n---\nschema: olm.package\nname: b\n"},
		{name: "no blobs", file: "c.json", content: "\n"},
	} {
		for _, load := range []struct {
			name string
			run  func(dir string, opt LoadOption) error
		}{
			{"LoadDir", func(dir string, opt LoadOption) error {
				_, err := LoadDir(context.Background(), dir, opt)
				return err
			}},
			{"LoadDir WithPackages", func(dir string, opt LoadOption) error {
				_, err := LoadDir(context.Background(), dir, opt, WithPackages("a", "b"))
				return err
			}},
			{"EachPackage", func(dir string, opt LoadOption) error {
				return EachPackage(context.Background(), dir, func(string, *DeclarativeConfig) error { return nil }, opt)
			}},
		} {
			t.Run(tc.name+"/"+load.name, func(t *testing.T) {
				dir := writeTree(t, map[string]string{tc.file: tc.content})
				st, err := os.Stat(filepath.Join(dir, tc.file))
				require.NoError(t, err)
				var mu sync.Mutex
				got := map[string]FileRead{}
				require.NoError(t, load.run(dir, WithFileReads(func(r FileRead) {
					mu.Lock()
					defer mu.Unlock()
					got[r.File] = r
				})))
				if len(got) == 0 && tc.content == "\n" && load.name != "LoadDir" {
					return // a load by package skips, undecoded, a file that names none
				}
				require.Len(t, got, 1)
				read := got[tc.file]
				assert.Equal(t, st.Size(), read.Size)
				assert.True(t, st.ModTime().Equal(read.ModTime), "modification time %s, noted %s", st.ModTime(), read.ModTime)
				if tc.blobs == nil {
					require.Nil(t, read.Spans)
					return
				}
				require.Len(t, read.Spans, len(tc.blobs))
				data, err := os.ReadFile(filepath.Join(dir, tc.file))
				require.NoError(t, err)
				for i, sp := range read.Spans {
					require.Equal(t, tc.blobs[i], string(data[sp.Off:sp.End]), "blob #%d", i)
				}
			})
		}
	}
}

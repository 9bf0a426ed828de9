package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWithSpans: the ranges WithSpans reports are each blob's bytes in
// its file, in blob order, for plain JSON files only, by LoadDir (with and
// without a package filter) and by EachPackage alike.
func TestWithSpans(t *testing.T) {
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
				var mu sync.Mutex
				got := map[string][]Span{}
				require.NoError(t, load.run(dir, WithSpans(func(file string, spans []Span) {
					mu.Lock()
					defer mu.Unlock()
					got[file] = spans
				})))
				if tc.blobs == nil {
					require.Empty(t, got)
					return
				}
				require.Len(t, got, 1)
				require.Len(t, got[tc.file], len(tc.blobs))
				data, err := os.ReadFile(filepath.Join(dir, tc.file))
				require.NoError(t, err)
				for i, sp := range got[tc.file] {
					require.Equal(t, tc.blobs[i], string(data[sp.Off:sp.End]), "blob #%d", i)
				}
			})
		}
	}
}

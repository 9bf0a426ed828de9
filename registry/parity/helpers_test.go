package parity

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

const fixtures = "../../fixtures/legacy"

func fixtureDB(name string) string  { return filepath.Join(fixtures, name, "index.db") }
func fixtureOPM(name string) string { return filepath.Join(fixtures, name, "opm-migrate") }

// fixtureNames lists the real legacy databases.
func fixtureNames(t testing.TB) []string {
	t.Helper()
	dbs, err := filepath.Glob(filepath.Join(fixtures, "*", "index.db"))
	require.NoError(t, err)
	require.NotEmpty(t, dbs)
	var names []string
	for _, db := range dbs {
		names = append(names, filepath.Base(filepath.Dir(db)))
	}
	return names
}

// blob is one declarative config blob, decoded generically.
type blob = map[string]any

// mutateCopy copies the declarative config directory src into a temp dir,
// lets edit change the blobs of each file, and returns the copy.
func mutateCopy(t *testing.T, src string, edit func(path string, blobs []blob) []blob) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "catalog")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if filepath.Ext(p) == ".json" {
			var blobs []blob
			dec := json.NewDecoder(bytes.NewReader(data))
			for {
				var b blob
				if err := dec.Decode(&b); errors.Is(err, io.EOF) {
					break
				} else if err != nil {
					return err
				}
				blobs = append(blobs, b)
			}
			blobs = edit(rel, blobs)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "    ")
			for _, b := range blobs {
				if err := enc.Encode(b); err != nil {
					return err
				}
			}
			data = buf.Bytes()
		}
		return os.WriteFile(out, data, 0o644)
	})
	require.NoError(t, err)
	return dst
}

// diffKey is what a test asserts about a difference.
type diffKey struct {
	RPC, Request, Path, Rule string
}

func keys(diffs []Diff) []diffKey {
	out := []diffKey{}
	for _, d := range diffs {
		out = append(out, diffKey{d.RPC, d.Request, d.Path, d.Rule})
	}
	return out
}

func rulesOf(diffs []Diff) map[string]bool {
	out := map[string]bool{}
	for _, d := range diffs {
		out[d.Rule] = true
	}
	return out
}

func dirExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func orEmpty(k []diffKey) []diffKey {
	if k == nil {
		return []diffKey{}
	}
	return k
}

package declcfgquery

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOpenFiles: reads by range reuse one handle per file while the path
// names the file it opened; a replaced or truncated file, eviction beyond
// maxOpenFiles, handles in use and closeAll behave as documented.
func TestOpenFiles(t *testing.T) {
	write := func(t *testing.T, path, content string) os.FileInfo {
		t.Helper()
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		st, err := os.Stat(path)
		require.NoError(t, err)
		return st
	}
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, o *openFiles, dir string)
	}{
		{"one handle per file", func(t *testing.T, o *openFiles, dir string) {
			p := filepath.Join(dir, "a.json")
			st := write(t, p, `{"a":1}{"b":2}`)
			got, err := o.readAt(p, st, 7, 7)
			require.NoError(t, err)
			require.Equal(t, `{"b":2}`, string(got))
			h := o.files[p]
			got, err = o.readAt(p, st, 0, 7)
			require.NoError(t, err)
			require.Equal(t, `{"a":1}`, string(got))
			require.Same(t, h, o.files[p])
			require.Zero(t, h.users)
		}},
		{"a replaced file is opened again", func(t *testing.T, o *openFiles, dir string) {
			p := filepath.Join(dir, "a.json")
			st := write(t, p, `{"a":1}`)
			_, err := o.readAt(p, st, 0, 7)
			require.NoError(t, err)
			old := o.files[p]
			tmp := filepath.Join(dir, "new")
			write(t, tmp, `{"z":9}`)
			require.NoError(t, os.Rename(tmp, p))
			st, err = os.Stat(p)
			require.NoError(t, err)
			got, err := o.readAt(p, st, 0, 7)
			require.NoError(t, err)
			require.Equal(t, `{"z":9}`, string(got), "read from the file the path names")
			require.ErrorIs(t, old.f.Close(), os.ErrClosed, "the old handle was closed")
		}},
		{"a truncated file fails the read", func(t *testing.T, o *openFiles, dir string) {
			p := filepath.Join(dir, "a.json")
			st := write(t, p, `{"a":1}{"b":2}`)
			_, err := o.readAt(p, st, 0, 7)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(p, 3))
			_, err = o.readAt(p, st, 7, 7)
			require.ErrorIs(t, err, io.EOF)
		}},
		{"the least recently used is evicted", func(t *testing.T, o *openFiles, dir string) {
			var first *openFile
			for i := range maxOpenFiles + 3 {
				p := filepath.Join(dir, fmt.Sprintf("%d.json", i))
				_, err := o.readAt(p, write(t, p, `{}`), 0, 2)
				require.NoError(t, err)
				if i == 0 {
					first = o.files[p]
				}
			}
			require.Len(t, o.files, maxOpenFiles)
			require.NotContains(t, o.files, filepath.Join(dir, "0.json"))
			require.ErrorIs(t, first.f.Close(), os.ErrClosed)
		}},
		{"a handle in use is closed by its last reader", func(t *testing.T, o *openFiles, dir string) {
			p := filepath.Join(dir, "a.json")
			st := write(t, p, `{}`)
			h, err := o.acquire(p, st)
			require.NoError(t, err)
			o.closeAll()
			require.Empty(t, o.files)
			got := make([]byte, 2)
			_, err = h.f.ReadAt(got, 0)
			require.NoError(t, err, "still open for its reader")
			o.release(h)
			require.ErrorIs(t, h.f.Close(), os.ErrClosed)
		}},
		{"concurrent reads", func(t *testing.T, o *openFiles, dir string) {
			var paths []string
			var stats []os.FileInfo
			for i := range 2 * maxOpenFiles {
				p := filepath.Join(dir, fmt.Sprintf("%d.json", i))
				paths, stats = append(paths, p), append(stats, write(t, p, fmt.Sprintf(`{"n":%02d}`, i)))
			}
			var wg sync.WaitGroup
			for g := range 4 {
				wg.Go(func() {
					for i := range 200 {
						n := (i*7 + g) % len(paths)
						got, err := o.readAt(paths[n], stats[n], 0, 8)
						if !assert.NoError(t, err) || !assert.Equal(t, fmt.Sprintf(`{"n":%02d}`, n), string(got)) {
							return
						}
					}
				})
			}
			wg.Wait()
			require.LessOrEqual(t, len(o.files), maxOpenFiles)
			for _, h := range o.files {
				require.Zero(t, h.users)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := newOpenFiles()
			t.Cleanup(o.closeAll)
			tc.run(t, o, t.TempDir())
		})
	}
}

// TestCloseKeepsServing: Close closes the files a Querier keeps open; a
// call after it opens its file again.
func TestCloseKeepsServing(t *testing.T) {
	_, lean := fullAndLean(t, blobFormDir(t, 0))
	_, err := lean.GetBundle(t.Context(), "foo", "beta", "foo.v0.2.0")
	require.NoError(t, err)
	src := lean.src.(*fileSource)
	require.Len(t, src.open.files, 1)
	require.NoError(t, lean.Close())
	require.Empty(t, src.open.files)
	_, err = lean.GetBundle(t.Context(), "foo", "beta", "foo.v0.1.0")
	require.NoError(t, err)
	require.NoError(t, lean.Close())
}

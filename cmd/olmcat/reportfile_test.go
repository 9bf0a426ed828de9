//go:build !slim

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportFileWritesThroughLinks: a report destination that is a
// symlink, a fifo or an open descriptor (/proc/self/fd/N) is written
// through, never replaced by a regular file; a symlink to nothing is a
// usage error before any work.
func TestReportFileWritesThroughLinks(t *testing.T) {
	db := filepath.Join(legacyFixtures, "small-fbb", "index.db")
	// reportOf checks a migration report's text.
	reportOf := func(t *testing.T, data []byte) {
		t.Helper()
		var r map[string]any
		require.NoError(t, json.Unmarshal(data, &r), string(data))
		assert.Equal(t, db, r["input"])
	}
	for _, tc := range []struct {
		name string
		// setup returns the --report argument and a function that
		// returns what reached the destination once the run is over.
		setup func(t *testing.T, dir string) (string, func() []byte)
		// check looks at the destination node after the run.
		check func(t *testing.T, report string)
	}{{
		name: "symlink to a regular file",
		setup: func(t *testing.T, dir string) (string, func() []byte) {
			target := filepath.Join(dir, "real.json")
			require.NoError(t, os.WriteFile(target, []byte("old"), 0o644))
			link := filepath.Join(dir, "link.json")
			require.NoError(t, os.Symlink("real.json", link))
			return link, func() []byte {
				data, err := os.ReadFile(target)
				require.NoError(t, err)
				return data
			}
		},
		check: func(t *testing.T, report string) {
			fi, err := os.Lstat(report)
			require.NoError(t, err)
			assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "the link stays a link")
			ents, err := os.ReadDir(filepath.Dir(report))
			require.NoError(t, err)
			assert.Len(t, ents, 3, "link, target and output only: no temporary left")
		},
	}, {
		name: "fifo",
		setup: func(t *testing.T, dir string) (string, func() []byte) {
			fifo := filepath.Join(dir, "fifo")
			require.NoError(t, syscall.Mkfifo(fifo, 0o644))
			got := make(chan []byte, 1)
			go func() {
				f, err := os.Open(fifo)
				if err != nil {
					got <- []byte(err.Error())
					return
				}
				defer f.Close()
				data, _ := io.ReadAll(f)
				got <- data
			}()
			return fifo, func() []byte {
				select {
				case data := <-got:
					return data
				case <-time.After(10 * time.Second):
					return []byte("nothing reached the fifo")
				}
			}
		},
		check: func(t *testing.T, report string) {
			fi, err := os.Lstat(report)
			require.NoError(t, err)
			assert.Equal(t, os.ModeNamedPipe, fi.Mode().Type(), "the fifo stays a fifo")
		},
	}, {
		name: "open descriptor",
		setup: func(t *testing.T, _ string) (string, func() []byte) {
			r, w, err := os.Pipe()
			require.NoError(t, err)
			got := make(chan []byte, 1)
			go func() {
				data, _ := io.ReadAll(r)
				r.Close()
				got <- data
			}()
			return fmt.Sprintf("/proc/self/fd/%d", w.Fd()), func() []byte {
				w.Close()
				return <-got
			}
		},
		check: func(*testing.T, string) {},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			report, read := tc.setup(t, dir)
			_, stderr, code := runCLI(t, "migrate", "--no-deprecation-warning", "--report", report, "--force", db, filepath.Join(dir, "out"))
			require.Equal(t, 0, code, stderr)
			reportOf(t, read())
			tc.check(t, report)
		})
	}

	t.Run("symlink to nothing", func(t *testing.T) {
		dir := t.TempDir()
		link := filepath.Join(dir, "link.json")
		require.NoError(t, os.Symlink("nowhere.json", link))
		_, stderr, code := runCLI(t, "migrate", "--no-deprecation-warning", "--report", link, "--force", db, filepath.Join(dir, "out"))
		assert.Equal(t, exitUsage, code, stderr)
		assert.Contains(t, stderr, "which does not exist")
		ents, err := os.ReadDir(dir)
		require.NoError(t, err)
		assert.Len(t, ents, 1, "no work done: only the link")
	})
}

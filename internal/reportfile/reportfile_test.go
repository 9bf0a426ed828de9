package reportfile

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// TestOpen: the rules a report destination is checked against before any
// work is done, and where the report then goes.
func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		// setup prepares dir and returns the report path, the output
		// directory and the inputs to open it with.
		setup func(t *testing.T, dir string) (path, outDir string, inputs []string)
		force bool
		// wantIs / wantErr: the error Open returns, if any.
		wantIs  error
		wantErr string
		// want is the file that holds "report\n" after Write, read at
		// its path in dir.
		want string
	}{{
		name: "a new file",
		setup: func(_ *testing.T, dir string) (string, string, []string) {
			return filepath.Join(dir, "r.json"), "", nil
		},
		want: "r.json",
	}, {
		name:    "exists without force",
		setup:   existing,
		wantIs:  pathcheck.ErrExists,
		wantErr: "r.json: exists",
	}, {
		name:  "exists with force",
		setup: existing,
		force: true,
		want:  "r.json",
	}, {
		name: "through a symlink the target is replaced",
		setup: func(t *testing.T, dir string) (string, string, []string) {
			t.Helper()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "target"), []byte("old"), 0o644))
			require.NoError(t, os.Symlink("target", filepath.Join(dir, "link")))
			return filepath.Join(dir, "link"), "", nil
		},
		force: true,
		want:  "target",
	}, {
		name: "inside an input",
		setup: func(t *testing.T, dir string) (string, string, []string) {
			t.Helper()
			in := filepath.Join(dir, "in")
			require.NoError(t, os.Mkdir(in, 0o755))
			return filepath.Join(in, "r.json"), "", []string{in}
		},
		wantIs: pathcheck.ErrOverlap,
	}, {
		name: "an input itself",
		setup: func(t *testing.T, dir string) (string, string, []string) {
			t.Helper()
			p := filepath.Join(dir, "index.db")
			require.NoError(t, os.WriteFile(p, nil, 0o644))
			return p, "", []string{"", p}
		},
		force:  true,
		wantIs: pathcheck.ErrOverlap,
	}, {
		name: "inside the output directory",
		setup: func(_ *testing.T, dir string) (string, string, []string) {
			return filepath.Join(dir, "out", "r.json"), filepath.Join(dir, "out"), nil
		},
		wantIs: pathcheck.ErrOverlap,
	}, {
		name: "a missing directory",
		setup: func(_ *testing.T, dir string) (string, string, []string) {
			return filepath.Join(dir, "nowhere", "r.json"), "", nil
		},
		wantErr: "does not exist",
	}, {
		name: "a symlink to nothing",
		setup: func(t *testing.T, dir string) (string, string, []string) {
			t.Helper()
			require.NoError(t, os.Symlink("nowhere", filepath.Join(dir, "dangling")))
			return filepath.Join(dir, "dangling"), "", nil
		},
		wantErr: "which does not exist",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path, outDir, inputs := tc.setup(t, dir)
			f, err := Open(path, outDir, tc.force, inputs...)
			if tc.wantIs != nil || tc.wantErr != "" {
				require.Error(t, err)
				if tc.wantIs != nil {
					assert.ErrorIs(t, err, tc.wantIs)
				}
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.NoError(t, f.Write(func(w io.Writer) error { _, err := io.WriteString(w, "report\n"); return err }))
			data, err := os.ReadFile(filepath.Join(dir, tc.want))
			require.NoError(t, err)
			assert.Equal(t, "report\n", string(data))
			assert.NotContains(t, strings.Join(names(t, dir), " "), ".tmp-", "no temporary file is left")
		})
	}
}

// existing makes dir/r.json with old contents.
func existing(t *testing.T, dir string) (string, string, []string) {
	t.Helper()
	p := filepath.Join(dir, "r.json")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	return p, "", nil
}

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// TestWriteThroughFifo: a fifo (as /dev/stdout may be) is written
// through, never replaced, and needs no force.
func TestWriteThroughFifo(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	got := make(chan string)
	go func() {
		r, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer r.Close()
		data, _ := io.ReadAll(r)
		got <- string(data)
	}()
	f, err := Open(fifo, "", false)
	require.NoError(t, err)
	require.NoError(t, f.WriteJSON(map[string]int{"a": 1}))
	assert.Equal(t, "{\n  \"a\": 1\n}\n", <-got)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	assert.Equal(t, os.ModeNamedPipe, fi.Mode().Type(), "the fifo stays")
}

// TestDevNull: a device is written through.
func TestDevNull(t *testing.T) {
	f, err := Open(os.DevNull, "", false)
	require.NoError(t, err)
	require.NoError(t, f.WriteJSON([]int{1}))
}

// TestKillSafe: nothing is visible at the destination before the report
// is written whole: a failed or discarded write leaves the old file and
// no temporary one, and a temporary directory a killed run left is swept
// by the next Open.
func TestKillSafe(t *testing.T) {
	dir := t.TempDir()
	dest, _, _ := existing(t, dir)

	f, err := Open(dest, "", true)
	require.NoError(t, err)
	assert.Len(t, names(t, dir), 2, "the temporary directory beside the destination")
	f.Discard()
	f.Discard()
	assert.Equal(t, []string{"r.json"}, names(t, dir))

	f, err = Open(dest, "", true)
	require.NoError(t, err)
	assert.ErrorContains(t, f.Write(func(io.Writer) error { return errors.New("boom") }), "write report "+dest+": boom")
	assert.Equal(t, []string{"r.json"}, names(t, dir))
	data, err := os.ReadFile(dest)
	require.NoError(t, err)
	assert.Equal(t, "old", string(data))

	// A kill leaves the temporary directory (marked by its name, locked
	// by nobody); the next Open sweeps it.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".r.json.tmp-1.olmcat", "r.json"), 0o755))
	f, err = Open(dest, "", true)
	require.NoError(t, err)
	require.NoError(t, f.WriteJSON("new"))
	assert.Equal(t, []string{"r.json"}, names(t, dir))

	var nilFile *File
	nilFile.Discard()
}

// TestWriteThroughDescriptor: an open descriptor (/proc/self/fd/N, as
// /dev/stdout is) is written through, never replaced.
func TestWriteThroughDescriptor(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	got := make(chan string, 1)
	go func() {
		data, _ := io.ReadAll(r)
		r.Close()
		got <- string(data)
	}()
	f, err := Open(fmt.Sprintf("/proc/self/fd/%d", w.Fd()), "", false)
	require.NoError(t, err)
	require.NoError(t, f.WriteJSON(1))
	w.Close()
	assert.Equal(t, "1\n", <-got)
}

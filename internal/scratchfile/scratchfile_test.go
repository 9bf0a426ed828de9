package scratchfile

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAppendReadBack: every append reads back by its offset, whether it
// is still in the buffer, was written by a later append, or is larger
// than the buffer; reads interleave with appends.
func TestAppendReadBack(t *testing.T) {
	for _, tc := range []struct {
		name  string
		sizes []int
	}{
		{"small", []int{1, 7, 300, 0, 12}},
		{"around the buffer", []int{bufferSize - 1, 1, 1, bufferSize, bufferSize + 1}},
		{"larger than the buffer", []int{3 * bufferSize, 10, 5 * bufferSize}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := New(t.TempDir())
			require.NoError(t, err)
			defer f.Close()
			var offs []int64
			var want [][]byte
			for i, n := range tc.sizes {
				p := bytes.Repeat([]byte{byte('a' + i)}, n)
				off, err := f.Append(p)
				require.NoError(t, err)
				offs, want = append(offs, off), append(want, p)
				for j := range offs { // everything so far, the newest still buffered
					got := make([]byte, len(want[j]))
					require.NoError(t, f.ReadAt(got, offs[j]))
					require.Equal(t, want[j], got, "append #%d after append #%d", j, i)
				}
			}
			var total int64
			for _, n := range tc.sizes {
				total += int64(n)
			}
			assert.Equal(t, total, f.Size())
		})
	}
}

// TestReadOutOfRange: a read past what was appended fails, naming the
// range.
func TestReadOutOfRange(t *testing.T) {
	f, err := New(t.TempDir())
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Append([]byte("abc"))
	require.NoError(t, err)
	require.EqualError(t, f.ReadAt(make([]byte, 2), 2), "read scratch file: bytes 2 to 4 of 3")
	require.EqualError(t, f.ReadAt(make([]byte, 1), -1), "read scratch file: bytes -1 to 0 of 3")
}

// TestNoName: the file leaves nothing in its directory, open or closed.
func TestNoName(t *testing.T) {
	dir := t.TempDir()
	f, err := New(dir)
	require.NoError(t, err)
	_, err = f.Append(bytes.Repeat([]byte("x"), 2*bufferSize))
	require.NoError(t, err)
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents)
	require.NoError(t, f.Close())
	ents, err = os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, ents)
}

// TestConcurrentAppends: appends and reads from many goroutines each
// read back what they appended (run with -race).
func TestConcurrentAppends(t *testing.T) {
	f, err := New(t.TempDir())
	require.NoError(t, err)
	defer f.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				p := []byte(fmt.Sprintf("goroutine %d append %d;", g, i))
				off, err := f.Append(p)
				if err == nil {
					got := make([]byte, len(p))
					if err = f.ReadAt(got, off); err == nil && !bytes.Equal(got, p) {
						err = fmt.Errorf("read %q at %d, appended %q", got, off, p)
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

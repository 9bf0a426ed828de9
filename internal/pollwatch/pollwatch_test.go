package pollwatch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeFiles is a fingerprint the test sets.
type fakeFiles struct {
	mu  sync.Mutex
	fp  string
	err error
}

func (f *fakeFiles) set(fp string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fp, f.err = fp, err
}

func (f *fakeFiles) take() (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.fp, f.err
}

// TestRunReportsEachChangeOnce: every state change is reported once,
// an unreadable catalog included (one change, not one per poll), and
// Unchanged compares with the last state reported.
func TestRunReportsEachChangeOnce(t *testing.T) {
	files := &fakeFiles{fp: "a"}
	w := Start(files.take)
	assert.True(t, w.Unchanged())

	changes := make(chan error, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.Run(ctx, time.Millisecond, func(_ context.Context, err error) { changes <- err })
	}()
	next := func() error {
		t.Helper()
		select {
		case err := <-changes:
			return err
		case <-time.After(10 * time.Second):
			require.FailNow(t, "no change reported")
			return nil
		}
	}

	files.set("b", nil)
	require.NoError(t, next())
	gone := errors.New("no such directory")
	files.set("", gone)
	require.ErrorIs(t, next(), gone)
	files.set("b", nil)
	require.NoError(t, next())
	time.Sleep(20 * time.Millisecond) // polls that see no change report none
	cancel()
	<-done
	assert.Empty(t, changes)
	assert.True(t, w.Unchanged())
	files.set("c", nil)
	assert.False(t, w.Unchanged())
}

// TestStartOnUnreadableFiles: files unreadable at the start are a state:
// they becoming readable is a change.
func TestStartOnUnreadableFiles(t *testing.T) {
	files := &fakeFiles{err: errors.New("busy")}
	w := Start(files.take)
	assert.True(t, w.Unchanged())
	files.set("a", nil)
	assert.False(t, w.Unchanged())
}

package parity

import (
	"context"
	"net"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/source"
)

// onFirstPackage is a PackageReport that calls fn once, when the first
// package is done: the check is then in the middle of its calls.
type onFirstPackage struct {
	once sync.Once
	fn   func()
}

func (r *onFirstPackage) Begin(SideInfo, SideInfo) error { return nil }
func (r *onFirstPackage) Diff(Diff) error                { return nil }
func (r *onFirstPackage) End(*Result) error              { return nil }
func (r *onFirstPackage) Package(*PackageResult) error {
	r.once.Do(r.fn)
	return nil
}

// settledGoroutines waits until the goroutines are back to at most n: a
// check that ended has stopped its workers and streams.
// (Polled here, not with assert.Eventually, whose own goroutine would
// count.)
func settledGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	assert.LessOrEqual(t, runtime.NumGoroutine(), n, "goroutines left running after the check")
}

// A check cancelled in the middle of its calls ends with the context's
// error, having stopped every call in flight.
func TestCheckCancelledMidway(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Check(ctx, fixtureDB("small-fbb"), fixtureOPM("small-fbb"), WithConcurrency(2),
		WithReport(&onFirstPackage{fn: cancel}))
	require.ErrorIs(t, err, context.Canceled)
	settledGoroutines(t, before)
}

// A live side that goes away in the middle of the check fails it, naming
// that side; the calls in flight are not reported as differences.
func TestCheckSideDiesMidway(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx := context.Background()
	q, _, err := source.Open(ctx, fixtureOPM("small-fbb"))
	require.NoError(t, err)
	defer q.Close()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srvCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- registry.Serve(srvCtx, lis, q) }()
	ref := "grpc://" + lis.Addr().String()

	_, err = Check(ctx, fixtureDB("small-fbb"), ref, WithKinds("", input.KindDeclcfg), WithConcurrency(2),
		WithReport(&onFirstPackage{fn: func() {
			stop()
			require.NoError(t, <-done)
		}}))
	require.Error(t, err)
	assert.ErrorContains(t, err, ref)
	settledGoroutines(t, before)
}

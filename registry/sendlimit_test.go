package registry_test

import (
	"context"
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// heapAfterGC is the live heap.
func heapAfterGC() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}

// countBundles drains a ListBundles stream.
func countBundles(ctx context.Context, c api.RegistryClient) (int, error) {
	s, err := c.ListBundles(ctx, &api.ListBundlesRequest{})
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		if _, err := s.Recv(); err == io.EOF {
			return n, nil
		} else if err != nil {
			return n, err
		}
		n++
	}
}

// TestStalledListBundlesBoundMemory serves bundles of 1 MB CSVs inline
// with a 4 MiB send buffer over loopback TCP. 10 clients open ListBundles
// and never read: the live heap grows by about the buffer, not by two
// bundles per stalled stream; a client that reads is answered beside
// them (their connections are closed once they stall it), and again
// after they are gone.
func TestStalledListBundlesBoundMemory(t *testing.T) {
	cat := catalogtest.Dir(t, catalogtest.WithBundles(4), catalogtest.WithoutImages(),
		catalogtest.WithCSVOnly(), catalogtest.WithManifestBytes(2_000_000))
	q, err := declcfgquery.Load(context.Background(), cat)
	require.NoError(t, err)
	defer q.Close()
	conn := serve(t, q, registry.WithLimits(registry.Limits{SendBuffer: 4 << 20, SendStall: 2 * time.Second}))
	c := api.NewRegistryClient(conn)
	want, err := countBundles(context.Background(), c)
	require.NoError(t, err)
	before := heapAfterGC()

	ctx, cancel := context.WithCancel(context.Background())
	for range 10 {
		sc, err := dial(conn.Target())
		require.NoError(t, err)
		defer sc.Close()
		_, err = api.NewRegistryClient(sc).ListBundles(ctx, &api.ListBundlesRequest{})
		require.NoError(t, err)
	}
	time.Sleep(2500 * time.Millisecond) // past the stall timeout: the stalled connections are closed as the reader waits
	n, err := countBundles(context.Background(), c)
	require.NoError(t, err, "a client that reads is answered beside stalled ones")
	assert.Equal(t, want, n)
	grown := heapAfterGC() - before
	assert.Less(t, grown, int64(12<<20), "live heap grew by %d MB with 10 stalled clients", grown>>20)

	cancel()
	n, err = countBundles(context.Background(), c)
	require.NoError(t, err)
	assert.Equal(t, want, n)
}

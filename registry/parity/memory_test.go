package parity

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry/api"
)

// sizedCatalog writes a declarative config catalog of packages packages,
// each with bundles bundles in one channel, each bundle carrying a
// property of propSize bytes: ListBundles answers carry those properties,
// so the answers of the whole catalog are large and each package's share
// small.
func sizedCatalog(t *testing.T, packages, bundles, propSize int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "catalog")
	big := strings.Repeat("x", propSize)
	for p := range packages {
		pkg := fmt.Sprintf("pkg-%03d", p)
		var b strings.Builder
		fmt.Fprintf(&b, `{"schema":"olm.package","name":%q,"defaultChannel":"stable"}`+"\n", pkg)
		var entries []string
		for i := range bundles {
			e := fmt.Sprintf(`{"name":"%s.v%d.0.0"`, pkg, i)
			if i > 0 {
				e += fmt.Sprintf(`,"replaces":"%s.v%d.0.0"`, pkg, i-1)
			}
			entries = append(entries, e+"}")
		}
		fmt.Fprintf(&b, `{"schema":"olm.channel","name":"stable","package":%q,"entries":[%s]}`+"\n", pkg, strings.Join(entries, ","))
		for i := range bundles {
			fmt.Fprintf(&b, `{"schema":"olm.bundle","name":"%s.v%d.0.0","package":%q,"image":"example.invalid/%s:v%d","properties":[`+
				`{"type":"olm.package","value":{"packageName":%q,"version":"%d.0.0"}},{"type":"test.sized","value":{"data":%q}}]}`+"\n",
				pkg, i, pkg, pkg, i, pkg, i, big)
		}
		require.NoError(t, os.MkdirAll(filepath.Join(dir, pkg), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, pkg, "catalog.json"), []byte(b.String()), 0o644))
	}
	return dir
}

// A check holds a few packages' answers at a time, not the catalog's:
// with two live servers (loaded before the measure) of a catalog whose
// ListBundles answers total about 64 MB a side, the heap the check adds
// stays below one side's answer (holding both answers, as a check that
// kept them would, is twice that). The GC runs often during the test so
// that the heap in use follows what is live.
func TestCheckHoldsFewPackagesAnswers(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and serves a 64 MB catalog")
	}
	const packages, bundles, propSize = 128, 4, 128 << 10
	dir := sizedCatalog(t, packages, bundles, propSize)
	left, right := serveGRPC(t, dir), serveGRPC(t, dir)

	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	res, err := Check(context.Background(), left, right, WithKinds(input.KindDeclcfg, input.KindDeclcfg))
	close(stop)
	<-sampled
	require.NoError(t, err)
	assert.True(t, res.OK(true), "the same catalog on both sides: %v", res.Err(true))
	for _, s := range res.Stats {
		if s.RPC == RPCGetPackage {
			assert.Equal(t, packages+1, s.Calls)
		}
	}
	answer := uint64(packages * bundles * propSize)
	grown := peak.Load() - min(base, peak.Load())
	t.Logf("ListBundles answer %d MB a side; heap grew by %d MB at most", answer>>20, grown>>20)
	assert.Less(t, grown, answer, "the check held as much as one side's ListBundles answer")
}

// heapGrowth returns how much the live heap grows while keep runs and what
// it built stays referenced.
func heapGrowth(keep func() any) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := keep()
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(kept)
	return after.HeapAlloc - min(before.HeapAlloc, after.HeapAlloc)
}

// What a check keeps for the whole run grows with the catalog, so it is
// kept small: a spilled bundle's place in the file, not the bundle.
func TestSpillKeepsPlacesNotBundles(t *testing.T) {
	sp, err := newSpill(t.TempDir())
	require.NoError(t, err)
	defer sp.close()
	const bundles, packages = 100_000, 1000
	grown := heapGrowth(func() any {
		for i := range bundles {
			require.NoError(t, sp.add(&api.Bundle{PackageName: fmt.Sprintf("pkg-%04d", i%packages), CsvName: fmt.Sprintf("b%d", i),
				CsvJson: strings.Repeat("x", 100)}))
		}
		return sp
	})
	t.Logf("%d bundles: %d bytes, %.1f a bundle", bundles, grown, float64(grown)/bundles)
	assert.Less(t, grown, uint64(64*bundles), "the spill keeps more than the place of each bundle")
	assert.Len(t, sp.spans["pkg-0007"], bundles/packages)
}

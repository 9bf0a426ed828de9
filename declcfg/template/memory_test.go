package template

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// renderToPeak renders a basic template of n bundle images of 25 a
// package through RenderTo, each rendered bundle carrying an
// olm.bundle.object of objSize bytes, and returns by how much the live
// heap grew at most meanwhile (sampled, the GC running often so that the
// heap in use follows what is live) and how many bytes were written.
func renderToPeak(t *testing.T, n, objSize int) (grown uint64, written int64) {
	t.Helper()
	var doc strings.Builder
	doc.WriteString(`{"schema": "olm.template.basic", "entries": [`)
	for i := range n {
		if i%25 == 0 {
			fmt.Fprintf(&doc, `{"schema": "olm.package", "name": "pkg-%04d"},`, i/25)
		}
		fmt.Fprintf(&doc, `{"schema": "olm.bundle", "image": "example.invalid/pkg-%04d-bundle:v0.%d.0"},`, i/25, i%25)
	}
	data := []byte(strings.TrimSuffix(doc.String(), ",") + "]}")
	render := func(_ context.Context, ref string) (*declcfg.Bundle, error) {
		var pkg string
		var minor int
		if _, err := fmt.Sscanf(ref, "example.invalid/pkg-%4s-bundle:v0.%d.0", &pkg, &minor); err != nil {
			return nil, err
		}
		pkg = "pkg-" + pkg
		return &declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: fmt.Sprintf("%s.v0.%d.0", pkg, minor), Package: pkg, Image: ref,
			Properties: []declcfg.Property{
				declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: pkg, Version: fmt.Sprintf("0.%d.0", minor)}),
				{Type: declcfg.PropertyBundleObject, Value: []byte(`{"data":"` + strings.Repeat("QUFB", objSize/4) + `"}`)},
			}}, nil
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop, sampled := make(chan struct{}), make(chan struct{})
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
	out := &countingWriter{}
	err := RenderTo(context.Background(), out, declcfg.FormatJSON, data, t.TempDir(), WithBundleRenderer(render))
	close(stop)
	<-sampled
	require.NoError(t, err)
	return peak.Load() - min(base, peak.Load()), out.n
}

// countingWriter counts what it is given and keeps none of it.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return io.Discard.Write(p)
}

// RenderTo holds stand-ins, not bundles: rendering 16 times the bundle
// images (of 64 KB each) grows the peak heap by less than an eighth of a
// bundle per added bundle, where a render holding the bundles adds at
// least a whole one. The output is all there.
func TestRenderToMemoryFlat(t *testing.T) {
	const objSize, small, large = 64 << 10, 100, 1600
	grownSmall, wroteSmall := renderToPeak(t, small, objSize)
	grownLarge, wroteLarge := renderToPeak(t, large, objSize)
	perBundle := (float64(grownLarge) - float64(grownSmall)) / (large - small)
	t.Logf("peak heap growth: %d bundles %.1f MB, %d bundles %.1f MB: %.0f bytes a bundle added",
		small, float64(grownSmall)/(1<<20), large, float64(grownLarge)/(1<<20), perBundle)
	assert.Greater(t, wroteSmall, int64(small*objSize))
	assert.Greater(t, wroteLarge, int64(large*objSize))
	assert.Less(t, perBundle, float64(objSize/8), "the peak heap grows with the bundles rendered")
}

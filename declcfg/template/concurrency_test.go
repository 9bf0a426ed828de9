package template

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// TestRenderConcurrency: WithConcurrency(n) renders exactly n bundle
// references at once, at most n, and the bundles keep the template's
// order whatever order the renders finish in.
func TestRenderConcurrency(t *testing.T) {
	const refs = 12
	var doc strings.Builder
	doc.WriteString("schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: foo\n")
	for i := range refs {
		fmt.Fprintf(&doc, "- schema: olm.bundle\n  image: example.com/foo-bundle:v0.%d.0\n", i)
	}
	for _, n := range []int{1, 2, 3} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			var (
				mu               sync.Mutex
				inFlight, most   int
				arrived          int
				allFirstInFlight = make(chan struct{})
			)
			render := func(_ context.Context, ref string) (*declcfg.Bundle, error) {
				mu.Lock()
				inFlight++
				most = max(most, inFlight)
				arrived++
				if arrived == n {
					close(allFirstInFlight)
				}
				first := arrived <= n
				mu.Unlock()
				if first {
					// The first n renders wait for each other: n at once
					// is reached whatever the scheduling.
					<-allFirstInFlight
				}
				time.Sleep(time.Millisecond) // room for a render above the limit to overlap
				mu.Lock()
				inFlight--
				mu.Unlock()
				version := strings.TrimPrefix(ref, "example.com/foo-bundle:")
				return &declcfg.Bundle{Schema: declcfg.SchemaBundle, Package: "foo", Name: "foo." + version, Image: ref}, nil
			}
			cfg, err := Render(context.Background(), []byte(doc.String()), WithBundleRenderer(render), WithConcurrency(n))
			require.NoError(t, err)
			assert.Equal(t, n, most, "renders in flight at once")
			require.Len(t, cfg.Bundles, refs)
			for i, b := range cfg.Bundles {
				assert.Equal(t, fmt.Sprintf("foo.v0.%d.0", i), b.Name)
			}
		})
	}
}

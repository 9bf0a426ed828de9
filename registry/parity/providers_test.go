package parity

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/scratchfile"
)

// TestKeepEarlyRoundTrip checks that the differences an early provider
// call keeps on disk come back as they were (rules of Rules and others,
// empty, invalid UTF-8 and non-ASCII strings), once: a second take, or a
// GVK never kept, finds none and the call is made again.
func TestKeepEarlyRoundTrip(t *testing.T) {
	f, err := scratchfile.New(t.TempDir())
	require.NoError(t, err)
	defer f.Close()
	r := &checkRun{early: map[manifest.GVK]spillSpan{}, earlyFile: f}
	c := call{rpc: RPCGetDefaultBundleThatProvides, gvk: manifest.GVK{Group: "g", Version: "v1", Kind: "K"}}
	none := call{rpc: RPCGetDefaultBundleThatProvides, gvk: manifest.GVK{Group: "g", Version: "v1", Kind: "Empty"}}
	diffs := []Diff{
		{RPC: c.rpc, Request: c.request(), Path: ".providedApis[*].plural", Left: "[g/v1/K=ks]", Right: "[g/v1/K=]",
			Class: RulePluralSQLiteOnly.Class, Rule: RulePluralSQLiteOnly.Name, Explanation: RulePluralSQLiteOnly.Explanation},
		{RPC: c.rpc, Request: c.request(), Path: "", Left: "\xff\xfe", Right: "absent \x00 ü",
			Class: Loss, Rule: "not-a-rule", Explanation: "made up"},
	}
	r.keepEarly(none, nil)
	r.keepEarly(c, diffs)

	got, ok := r.takeEarly(c.gvk)
	require.True(t, ok)
	assert.Equal(t, diffs, got)
	got, ok = r.takeEarly(none.gvk)
	require.True(t, ok, "a call without differences is kept too")
	assert.Empty(t, got)

	_, ok = r.takeEarly(c.gvk)
	assert.False(t, ok, "taken once")
	_, ok = r.takeEarly(manifest.GVK{Kind: "Never"})
	assert.False(t, ok)
}

package parity

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// TestPackDiffsRoundTrip checks that the differences an early provider
// call keeps come back as they were: rules of Rules and others, the
// call's RPC and request or not, empty and non-ASCII strings.
func TestPackDiffsRoundTrip(t *testing.T) {
	c := call{rpc: RPCGetDefaultBundleThatProvides, gvk: manifest.GVK{Group: "g", Version: "v1", Kind: "K"}}
	diffs := []Diff{
		{RPC: c.rpc, Request: c.request(), Path: ".providedApis[*].plural", Left: "[g/v1/K=ks]", Right: "[g/v1/K=]",
			Class: RulePluralSQLiteOnly.Class, Rule: RulePluralSQLiteOnly.Name, Explanation: RulePluralSQLiteOnly.Explanation},
		{RPC: c.rpc, Request: c.request(), Path: "", Left: "", Right: "absent \x00 ü",
			Class: Loss, Rule: "not-a-rule", Explanation: "made up"},
		{RPC: "Other", Request: "name=x", Path: ".csvName", Left: "a", Right: "b",
			Class: RuleFieldDiffers.Class, Rule: RuleFieldDiffers.Name, Explanation: RuleFieldDiffers.Explanation},
	}
	assert.Equal(t, diffs, unpackDiffs(c, packDiffs(c, diffs)))
	assert.Empty(t, packDiffs(c, nil))
	assert.Nil(t, unpackDiffs(c, ""))
}

package migrate

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/legacy"
)

// TestRepeatedDigestIsRepaired: a related image whose reference carries
// the same digest twice (repo@sha256:X@sha256:X, found in a real database)
// names one image: it is repaired and reported as a repair; references
// with two different digests stay invalid.
func TestRepeatedDigestIsRepaired(t *testing.T) {
	bundles := smallFBBBundles(t)
	digest := "sha256:" + strings.Repeat("ab", 32)
	repeated := "example.com/example/operator@" + digest + "@" + digest

	got, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, []dbbuild.Option{dbbuild.WithBadImageRef("bar.v1.0.0", repeated)})
	require.NoError(t, err)
	assert.Empty(t, rep.Problems)
	var repairs []legacy.Repair
	for _, r := range rep.Repairs {
		if r.Kind == RepairRepeatedDigest {
			repairs = append(repairs, r)
		}
	}
	require.Len(t, repairs, 1)
	assert.Equal(t, "bar", repairs[0].Package)
	assert.Equal(t, "bar.v1.0.0", repairs[0].Bundle)
	assert.Contains(t, repairs[0].Detail, repeated)
	var images []string
	for _, b := range got["bar/catalog.json"] {
		if b.Fields["name"] == "bar.v1.0.0" {
			for _, ri := range b.Fields["relatedImages"].([]any) {
				images = append(images, ri.(map[string]any)["image"].(string))
			}
		}
	}
	assert.Contains(t, images, "example.com/example/operator@"+digest)
	assert.NotContains(t, images, repeated)

	other := "sha256:" + strings.Repeat("cd", 32)
	_, rep, err = buildAndMigrate(t, dbbuild.MaxLevel, bundles, []dbbuild.Option{
		dbbuild.WithBadImageRef("bar.v1.0.0", "example.com/example/operator@"+digest+"@"+other)})
	var pe *ProblemsError
	require.True(t, errors.As(err, &pe), "two different digests stay invalid: %v", err)
	assert.Equal(t, ProblemInvalidRelatedImage, rep.Problems[0].Kind)
}

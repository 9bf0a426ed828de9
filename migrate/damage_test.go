package migrate

import (
	"errors"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/legacy"
)

const badRef = "example.com/strimzi/operator@@sha256:0000000000000000000000000000000000000000000000000000000000000000"

// mapBundles returns a copy of cat with fn applied to every bundle blob.
func mapBundles(cat map[string][]cblob, fn func(b *cblob)) map[string][]cblob {
	out := map[string][]cblob{}
	for f, blobs := range cat {
		for _, b := range blobs {
			nb := cblob{Fields: map[string]any{}, Props: append([]cprop(nil), b.Props...)}
			for k, v := range b.Fields {
				nb.Fields[k] = v
			}
			if nb.Fields["schema"] == declcfg.SchemaBundle {
				fn(&nb)
			}
			out[f] = append(out[f], nb)
		}
	}
	return out
}

func withoutProps(types ...string) func(b *cblob) {
	return func(b *cblob) {
		var kept []cprop
		for _, p := range b.Props {
			drop := false
			for _, t := range types {
				drop = drop || p.Type == t
			}
			if !drop {
				kept = append(kept, p)
			}
		}
		b.Props = kept
	}
}

func repairCounts(rs []legacy.Repair) map[legacy.RepairKind]int {
	out := map[legacy.RepairKind]int{}
	for _, r := range rs {
		out[r.Kind]++
	}
	return out
}

func blobNames(cat map[string][]cblob, file, schema string) []string {
	var out []string
	for _, b := range cat[file] {
		if b.Fields["schema"] == schema {
			out = append(out, b.Fields["name"].(string))
		}
	}
	sort.Strings(out)
	return out
}

func assertCatalog(t *testing.T, want, got map[string][]cblob) {
	t.Helper()
	require.Equal(t, sortedKeys(want), sortedKeys(got))
	for f := range want {
		assert.Equal(t, want[f], got[f], "file %s", f)
	}
}

// TestDamage migrates databases with each kind of known damage and checks
// the exact catalog and report lines.
func TestDamage(t *testing.T) {
	bundles := smallFBBBundles(t)
	ref, _, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, nil)
	require.NoError(t, err)
	stranded := []string{"stranded-bundle baz baz.v1.0.1"}

	t.Run("migration-5 junk rows", func(t *testing.T) {
		// At level 5 the missing tables are derived from the CSVs, so the
		// catalog is the level-5 one.
		got, rep, err := buildAndMigrate(t, 5, bundles, []dbbuild.Option{dbbuild.WithMigration5JunkRows()})
		require.NoError(t, err)
		assertCatalog(t, levelView(ref, 5), got)
		assert.Equal(t, 1, repairCounts(rep.Repairs)[legacy.RepairNullNameRows])
		assert.Equal(t, 10, repairCounts(rep.Repairs)[legacy.RepairNullVersion])
		assert.Equal(t, stranded, findingLines(rep.Drops))

		// Migrated on to level 13, opm's later backfills keyed by the NULL
		// version left the api, properties and dependencies tables empty
		// for these bundles; the reader recovers what the manifests say,
		// so the catalog is again the level-5 one (what only
		// dependencies.yaml held never reached such a database).
		got, rep, err = buildAndMigrate(t, dbbuild.MaxLevel, bundles, []dbbuild.Option{dbbuild.WithMigration5JunkRows()})
		require.NoError(t, err)
		want := levelView(ref, 5)
		assertCatalog(t, want, got)
		assert.Equal(t, 1, repairCounts(rep.Repairs)[legacy.RepairNullNameRows])
		assert.Equal(t, 10, repairCounts(rep.Repairs)[legacy.RepairNullVersion])
		assert.Equal(t, stranded, findingLines(rep.Drops))
	})

	t.Run("migration-9 corrupt dependencies", func(t *testing.T) {
		got, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, []dbbuild.Option{dbbuild.WithCorruptDependencies()})
		require.NoError(t, err)
		// The copies are dropped; what only dependencies.yaml held cannot be
		// recovered (the repair lines say so). The first row's own bundle
		// keeps its genuine value.
		want := mapBundles(ref, func(b *cblob) {
			if b.Fields["name"] == "foo.v0.1.0" {
				withoutProps(declcfg.PropertyGVKRequired)(b)
				return
			}
			withoutProps(declcfg.PropertyPackageRequired, declcfg.PropertyGVKRequired)(b)
		})
		assertCatalog(t, want, got)
		assert.Equal(t, map[legacy.RepairKind]int{legacy.RepairCorruptDependencies: 5}, repairCounts(rep.Repairs))
	})

	t.Run("non-head manifests cleared", func(t *testing.T) {
		got, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, []dbbuild.Option{dbbuild.WithClearedNonHeads()})
		require.NoError(t, err)
		cleared := map[string]bool{"bar.v0.1.0": true, "baz.v1.0.0": true, "foo.v0.1.0": true, "foo.v0.3.0": true}
		want := mapBundles(ref, func(b *cblob) {
			if !cleared[b.Fields["name"].(string)] {
				return
			}
			withoutProps(declcfg.PropertyBundleObject)(b)
			// Without a CSV nothing names the related images.
			var ris []any
			for _, ri := range b.Fields["relatedImages"].([]any) {
				ris = append(ris, map[string]any{"name": "", "image": ri.(map[string]any)["image"]})
			}
			b.Fields["relatedImages"] = ris
		})
		assertCatalog(t, want, got)
		assert.Equal(t, map[legacy.RepairKind]int{legacy.RepairMissingManifests: 5}, repairCounts(rep.Repairs))
		assert.Equal(t, 10, rep.Counts.Objects)
	})

	t.Run("missing default channel", func(t *testing.T) {
		got, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, []dbbuild.Option{dbbuild.WithMissingDefaultChannel("foo")})
		require.NoError(t, err, "opm panicked here")
		assertCatalog(t, ref, got)
		require.Len(t, rep.Repairs, 1)
		assert.Equal(t, legacy.RepairMissingDefaultChannel, rep.Repairs[0].Kind)
		assert.Equal(t, "foo", rep.Repairs[0].Package)
	})

	t.Run("NULL property path", func(t *testing.T) {
		got, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, []dbbuild.Option{dbbuild.WithNullPropertyPath()})
		require.NoError(t, err)
		want := mapBundles(ref, func(b *cblob) {
			img := b.Fields["image"]
			var ris []any
			for _, ri := range b.Fields["relatedImages"].([]any) {
				if ri.(map[string]any)["image"] != img {
					ris = append(ris, ri)
				}
			}
			b.Fields["relatedImages"] = ris
			b.Fields["image"] = ""
		})
		assertCatalog(t, want, got)
		assert.Equal(t, map[legacy.RepairKind]int{legacy.RepairNullPropertyPath: 3}, repairCounts(rep.Repairs))
	})

	t.Run("deprecated bundle", func(t *testing.T) {
		opts := []dbbuild.Option{dbbuild.WithDeprecated("foo.v0.2.0")}
		got, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, opts)
		require.NoError(t, err)
		assert.Equal(t, []string{"foo.v0.3.0", "foo.v0.3.1"}, blobNames(got, "foo/catalog.json", declcfg.SchemaBundle))
		assert.Equal(t, []string{"beta"}, blobNames(got, "foo/catalog.json", declcfg.SchemaChannel))
		assert.Equal(t, append(append([]string{}, stranded...), "deprecated-bundle foo foo.v0.2.0"), findingLines(rep.Drops))
		require.Len(t, rep.Notes, 1)
		assert.Equal(t, NoteDanglingEdge, rep.Notes[0].Kind)
		assert.Equal(t, "foo.v0.3.1", rep.Notes[0].Bundle)
		assert.Equal(t, "foo.v0.2.0", rep.Notes[0].Value)

		got, rep, err = buildAndMigrate(t, dbbuild.MaxLevel, bundles, opts, WithKeepDeprecated(true))
		require.NoError(t, err)
		assert.Equal(t, []string{"foo.v0.2.0", "foo.v0.3.0", "foo.v0.3.1"}, blobNames(got, "foo/catalog.json", declcfg.SchemaBundle))
		assert.Equal(t, stranded, findingLines(rep.Drops))
		assert.Empty(t, rep.Notes)
		assert.Equal(t, 1, rep.Counts.Deprecations)
		last := got["foo/catalog.json"][len(got["foo/catalog.json"])-1]
		assert.Equal(t, declcfg.SchemaDeprecations, last.Fields["schema"])
	})

	t.Run("invalid related image", func(t *testing.T) {
		opts := []dbbuild.Option{dbbuild.WithBadImageRef("bar.v1.0.0", badRef)}
		_, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, opts)
		var pe *ProblemsError
		require.True(t, errors.As(err, &pe), "got %v", err)
		require.Len(t, rep.Problems, 1)
		p := rep.Problems[0]
		assert.Equal(t, ProblemInvalidRelatedImage, p.Kind)
		assert.Equal(t, "bar", p.Package)
		assert.Equal(t, "bar.v1.0.0", p.Bundle)
		assert.Equal(t, "relatedImages[0].image", p.Field)
		assert.Equal(t, badRef, p.Value)
		assert.Contains(t, err.Error(), "use WithDropInvalidRelatedImages")

		got, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, opts, WithDropInvalidRelatedImages(true))
		require.NoError(t, err)
		assert.Equal(t, append([]string{"dropped-invalid-related-image bar bar.v1.0.0"}, stranded...), findingLines(rep.Drops))
		var gotRI, refRI any
		for _, b := range got["bar/catalog.json"] {
			if b.Fields["name"] == "bar.v1.0.0" {
				gotRI = b.Fields["relatedImages"]
			}
		}
		for _, b := range ref["bar/catalog.json"] {
			if b.Fields["name"] == "bar.v1.0.0" {
				refRI = b.Fields["relatedImages"]
			}
		}
		assert.Equal(t, refRI, gotRI)
	})

	t.Run("invalid bundle image", func(t *testing.T) {
		bad := append([]dbbuild.Bundle(nil), bundles...)
		for i := range bad {
			if bad[i].Image == "registry.test/small-fbb/baz-bundle:v1.1.0" {
				bad[i].Image = "registry.test/small-fbb/baz-bundle@@sha256:1"
			}
		}
		_, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bad, nil)
		require.Error(t, err)
		var kinds []string
		for _, p := range rep.Problems {
			kinds = append(kinds, string(p.Kind)+" "+p.Bundle+" "+p.Field)
		}
		assert.Contains(t, kinds, "invalid-image baz.v1.1.0 image")

		// Dropping the head of baz's only channel leaves baz.v1.0.0 alone
		// as head: still servable.
		got, rep, err := buildAndMigrate(t, dbbuild.MaxLevel, bad, nil, WithDropInvalidBundles(true), WithDropInvalidRelatedImages(true))
		require.NoError(t, err)
		assert.Contains(t, findingLines(rep.Drops), "dropped-invalid-bundle baz baz.v1.1.0")
		assert.Equal(t, []string{"baz.v1.0.0"}, blobNames(got, "baz/catalog.json", declcfg.SchemaBundle))
	})
}

package migrate

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/legacy"
)

func smallFBBBundles(t *testing.T) []dbbuild.Bundle {
	t.Helper()
	bundles, err := dbbuild.ReadBundleDirs("../fixtures/bundles/small-fbb", dbbuild.RegistryImage("registry.test/small-fbb/"))
	require.NoError(t, err)
	return bundles
}

// buildAndMigrate builds a database from bundles at level with opts and
// migrates it with mopts.
func buildAndMigrate(t *testing.T, level int, bundles []dbbuild.Bundle, opts []dbbuild.Option, mopts ...Option) (map[string][]cblob, *Report, error) {
	t.Helper()
	db := filepath.Join(t.TempDir(), "index.db")
	require.NoError(t, dbbuild.Build(context.Background(), db, level, bundles, opts...))
	out := filepath.Join(t.TempDir(), "catalog")
	rep, err := Migrate(context.Background(), db, out, mopts...)
	if err != nil {
		assertNothingWritten(t, out)
		return nil, rep, err
	}
	cfg, lerr := declcfg.LoadDir(context.Background(), out)
	require.NoError(t, lerr)
	_, verr := model.FromDeclcfg(cfg)
	require.NoError(t, verr, "migrated output must validate")
	return readCatalog(t, out), rep, nil
}

// levelView removes from a level-13 catalog what a database of the given
// level never held, so that it can be compared with that level's output:
//   - below level 8 (no dependencies table) the requirements opm took
//     from metadata/dependencies.yaml;
//   - up to level 5 the bundle image as a related image (opm of 2020 did
//     not record it);
//   - below level 2 (no bundlepath column) the bundle image itself.
func levelView(cat map[string][]cblob, level int) map[string][]cblob {
	out := map[string][]cblob{}
	for f, blobs := range cat {
		for _, b := range blobs {
			nb := cblob{Fields: map[string]any{}}
			for k, v := range b.Fields {
				nb.Fields[k] = v
			}
			for _, p := range b.Props {
				if level < 8 && (p.Type == declcfg.PropertyGVKRequired || p.Type == declcfg.PropertyPackageRequired) {
					continue
				}
				nb.Props = append(nb.Props, p)
			}
			if b.Fields["schema"] == declcfg.SchemaBundle {
				img := b.Fields["image"]
				if ris, ok := b.Fields["relatedImages"].([]any); ok && level <= 5 {
					var kept []any
					for _, ri := range ris {
						if ri.(map[string]any)["image"] != img {
							kept = append(kept, ri)
						}
					}
					nb.Fields["relatedImages"] = kept
				}
				if level < 2 {
					nb.Fields["image"] = ""
				}
			}
			out[f] = append(out[f], nb)
		}
	}
	return out
}

// TestEveryLevel migrates the small-fbb bundles loaded at every schema
// level and checks the result against the level-13 result minus what the
// level cannot hold, and the report lines each level must produce.
func TestEveryLevel(t *testing.T) {
	bundles := smallFBBBundles(t)
	ref, refRep, err := buildAndMigrate(t, dbbuild.MaxLevel, bundles, nil)
	require.NoError(t, err)
	// dbbuild loads in replaces mode: baz.v1.0.1 is on no replaces chain.
	require.Equal(t, []string{"stranded-bundle baz baz.v1.0.1"}, findingLines(refRep.Drops))
	require.Equal(t, Counts{Packages: 3, Channels: 5, Bundles: 9, Objects: 18}, refRep.Counts)

	for level := dbbuild.MinLevel; level < dbbuild.MaxLevel; level++ {
		t.Run(levelName(level), func(t *testing.T) {
			got, rep, err := buildAndMigrate(t, level, bundles, nil)
			require.NoError(t, err)
			want := levelView(ref, level)
			require.Equal(t, sortedKeys(want), sortedKeys(got))
			for f := range want {
				assert.Equal(t, want[f], got[f], "file %s", f)
			}
			assert.Equal(t, refRep.Counts, rep.Counts)
			assert.Equal(t, level, rep.SchemaLevel)
			assert.Equal(t, []string{"stranded-bundle baz baz.v1.0.1"}, findingLines(rep.Drops))
			assert.Empty(t, rep.Problems)
			// The csv-metadata level converts and validates at every level too.
			_, crep, err := buildAndMigrate(t, level, bundles, nil, WithMigrateLevel(MigrateLevelAll))
			require.NoError(t, err)
			if level >= 2 {
				assert.Zero(t, crep.Counts.Objects, "bundles with an image carry olm.csv.metadata instead")
			} else {
				assert.Equal(t, rep.Counts.Objects, crep.Counts.Objects, "without bundlepath there is no image: manifests stay")
			}
			kinds := repairKinds(rep.Repairs)
			if level < 9 {
				assert.Contains(t, kinds, legacy.RepairDerived, "levels without properties derive them and say so")
			} else {
				assert.NotContains(t, kinds, legacy.RepairDerived)
			}
		})
	}
}

func levelName(level int) string {
	if level < 0 {
		return "level-minus1"
	}
	return "level-" + strings.Repeat("0", 2-len(itoa(level))) + itoa(level)
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

func findingLines(fs []Finding) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, strings.Join([]string{string(f.Kind), f.Package, f.Bundle}, " "))
	}
	return out
}

func repairKinds(rs []legacy.Repair) []legacy.RepairKind {
	var out []legacy.RepairKind
	for _, r := range rs {
		out = append(out, r.Kind)
	}
	return out
}

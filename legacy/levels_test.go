package legacy

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
)

const (
	smallFBBDir   = "../fixtures/bundles/small-fbb"
	opmBundlesDir = "../fixtures/bundles/opm-bundles"
)

func smallFBBBundles(t *testing.T) []dbbuild.Bundle {
	t.Helper()
	bs, err := dbbuild.ReadBundleDirs(smallFBBDir, dbbuild.RegistryImage("127.0.0.1:5000/test/"))
	require.NoError(t, err)
	require.Len(t, bs, 10)
	return bs
}

// opmBundles are operator-registry's etcd and prometheus bundles (the
// edge-before-substitutes inputs): etcd requires an API and carries an
// olm.constraint dependency.
func opmBundles(t *testing.T) []dbbuild.Bundle {
	t.Helper()
	var out []dbbuild.Bundle
	for _, d := range []string{"etcd.0.9.0", "etcd.0.9.2", "prometheus.0.14.0", "prometheus.0.15.0", "prometheus.0.22.2"} {
		b, err := dbbuild.ReadBundleDir(filepath.Join(opmBundlesDir, d))
		require.NoError(t, err)
		b.Image = "127.0.0.1:5000/operator-registry/bundles:" + d
		out = append(out, b)
	}
	return out
}

func buildDB(t *testing.T, level int, bs []dbbuild.Bundle, opts ...dbbuild.Option) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), fmt.Sprintf("level%d.db", level))
	require.NoError(t, dbbuild.Build(context.Background(), path, level, bs, opts...))
	return path
}

func openPath(t *testing.T, path string, opts ...Option) *DB {
	t.Helper()
	db, err := Open(context.Background(), path, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func sortedProps(ps []Property) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Type+" "+p.Value)
	}
	sort.Strings(out)
	return out
}

func sortedDeps(ds []Dependency) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Type+" "+d.Value)
	}
	sort.Strings(out)
	return out
}

func without(list []string, drop string) []string {
	var out []string
	for _, s := range list {
		if s != drop {
			out = append(out, s)
		}
	}
	return out
}

func kindsAndBundles(rs []Repair) []string {
	var out []string
	for _, r := range rs {
		out = append(out, string(r.Kind)+" "+r.Bundle)
	}
	return out
}

// compareBundle checks b (read at level) against want (read at level 13).
func compareBundle(t *testing.T, level int, want, b *Bundle) {
	t.Helper()
	require.Equal(t, want.Name, b.Name)
	assert.Equal(t, want.Version, b.Version, b.Name)
	assert.Equal(t, want.SkipRange, b.SkipRange, b.Name)
	assert.Equal(t, want.Replaces, b.Replaces, b.Name)
	assert.Equal(t, want.Skips, b.Skips, b.Name)
	assert.True(t, bytes.Equal(want.CSV, b.CSV), "%s: csv differs", b.Name)
	if assert.Len(t, b.Objects, len(want.Objects), b.Name) {
		for i := range want.Objects {
			assert.True(t, bytes.Equal(want.Objects[i], b.Objects[i]), "%s: object %d differs", b.Name, i)
		}
	}
	assert.Equal(t, want.Deprecated, b.Deprecated, b.Name)
	assert.ElementsMatch(t, want.ProvidedAPIs, b.ProvidedAPIs, b.Name)
	assert.ElementsMatch(t, want.RequiredAPIs, b.RequiredAPIs, b.Name)
	if level >= 2 {
		assert.Equal(t, want.BundlePath, b.BundlePath, b.Name)
	}
	assert.Equal(t, sortedProps(want.Properties), sortedProps(b.Properties), b.Name)
	if level >= 8 {
		assert.Equal(t, sortedDeps(want.Dependencies), sortedDeps(b.Dependencies), b.Name)
	} else {
		// Only the CSV's required APIs survive without the dependencies
		// table.
		var deps []string
		for _, a := range want.RequiredAPIs {
			deps = append(deps, "olm.gvk "+gvkValue(a))
		}
		sort.Strings(deps)
		assert.Equal(t, deps, sortedDeps(b.Dependencies), b.Name)
	}
	images := want.RelatedImages
	if level < 6 {
		images = without(images, want.BundlePath)
	}
	assert.ElementsMatch(t, images, b.RelatedImages, b.Name)
}

// TestEveryLevel builds the same bundles at every schema level and checks
// that what the reader returns (stored or derived) equals what it returns
// for level 13, except where a level cannot hold the data at all.
func TestEveryLevel(t *testing.T) {
	sets := []struct {
		name    string
		bundles func(*testing.T) []dbbuild.Bundle
	}{
		{"small-fbb", smallFBBBundles},
		{"opm-bundles", opmBundles},
	}
	for _, set := range sets {
		bs := set.bundles(t)
		ref := readAll(t, openPath(t, buildDB(t, 13, bs)))
		for level := dbbuild.MinLevel; level <= dbbuild.MaxLevel; level++ {
			t.Run(fmt.Sprintf("%s/level%d", set.name, level), func(t *testing.T) {
				path := buildDB(t, level, bs)
				before := fileSum(t, path)
				db := openPath(t, path)
				assert.Equal(t, level, db.Level())
				assert.Empty(t, db.Repairs())
				got := readAll(t, db)
				require.Len(t, got, len(ref))
				for name, want := range ref {
					pd := got[name]
					require.NotNil(t, pd, name)
					assert.Equal(t, want.Package, pd.Package)
					assert.Equal(t, want.Channels, pd.Channels)
					assert.Len(t, pd.Entries, len(want.Entries))
					require.Len(t, pd.Bundles, len(want.Bundles))
					require.Len(t, pd.Stranded, len(want.Stranded))
					for i := range want.Bundles {
						compareBundle(t, level, &want.Bundles[i], &pd.Bundles[i])
					}
					for i := range want.Stranded {
						compareBundle(t, level, &want.Stranded[i], &pd.Stranded[i])
					}
					// Same repairs as level 13 (by kind and bundle), plus one
					// RepairDerived line below level 9.
					wantRepairs := kindsAndBundles(want.Repairs)
					gotRepairs := kindsAndBundles(pd.Repairs)
					if level < 9 {
						wantRepairs = append(wantRepairs, string(RepairDerived)+" ")
						d := repairsOf(pd.Repairs, RepairDerived)
						require.Len(t, d, 1, name)
						assert.Equal(t, name, d[0].Package)
						assert.Contains(t, d[0].Detail, fmt.Sprintf("schema level %d", level))
						assert.Contains(t, d[0].Detail, "properties")
					}
					assert.ElementsMatch(t, wantRepairs, gotRepairs, name)
				}
				// SkipManifests changes nothing but CSV and Objects.
				skipped := readAll(t, openPath(t, path, SkipManifests()))
				for name, pd := range got {
					sp := skipped[name]
					require.NotNil(t, sp, name)
					assert.Equal(t, pd.Repairs, sp.Repairs, name)
					for i := range pd.Bundles {
						b, sb := pd.Bundles[i], sp.Bundles[i]
						assert.Nil(t, sb.CSV, sb.Name)
						assert.Nil(t, sb.Objects, sb.Name)
						b.CSV, b.Objects = nil, nil
						assert.Equal(t, b, sb)
					}
				}
				require.NoError(t, db.Close())
				assert.Equal(t, before, fileSum(t, path), "file bytes changed")
			})
		}
	}
}

// TestSchemaNotLevel checks that the reader goes by the tables and columns
// present, not by the recorded level.
func TestSchemaNotLevel(t *testing.T) {
	bs := smallFBBBundles(t)
	ref := readAll(t, openPath(t, buildDB(t, 13, bs)))
	tests := []struct {
		name  string
		stmts []string
		level int
	}{
		{"empty schema_migrations", []string{`DELETE FROM schema_migrations`}, -1},
		{"no schema_migrations", []string{`DROP TABLE schema_migrations`}, -1},
		{"manifests as TEXT, values as BLOB", []string{
			`UPDATE operatorbundle SET csv = CAST(csv AS TEXT), bundle = CAST(bundle AS TEXT)`,
			`UPDATE properties SET value = CAST(value AS BLOB), type = CAST(type AS BLOB)`,
			`UPDATE dependencies SET value = CAST(value AS TEXT)`,
			`UPDATE related_image SET image = CAST(image AS BLOB)`}, 13},
		{"level 13 without deprecated and substitutesfor", []string{
			`DROP TABLE deprecated`, `ALTER TABLE operatorbundle DROP COLUMN substitutesfor`}, 13},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := buildDB(t, 13, bs)
			testinput.ExecSQL(t, path, tc.stmts...)
			db := openPath(t, path)
			assert.Equal(t, tc.level, db.Level())
			got := readAll(t, db)
			for name, want := range ref {
				require.Len(t, got[name].Bundles, len(want.Bundles))
				for i := range want.Bundles {
					compareBundle(t, 13, &want.Bundles[i], &got[name].Bundles[i])
				}
			}
		})
	}
}

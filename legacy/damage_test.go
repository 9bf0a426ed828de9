package legacy

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
)

// repairLines renders repairs as "kind package/bundle" for exact asserts.
func repairLines(rs []Repair) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%s %s/%s", r.Kind, r.Package, r.Bundle))
	}
	sort.Strings(out)
	return out
}

// allRepairLines are the per-package repair lines of every package.
func allRepairLines(all map[string]*PackageData) []string {
	var rs []Repair
	for _, pd := range all {
		rs = append(rs, pd.Repairs...)
	}
	return repairLines(rs)
}

func withoutKind(lines []string, kind RepairKind) []string {
	var out []string
	for _, l := range lines {
		if len(l) < len(kind)+1 || l[:len(kind)+1] != string(kind)+" " {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

// strandedBaz is the repair line for baz.v1.0.1, which the builder's
// replaces-mode walk never reaches (nothing replaces or skips it).
const strandedBaz = "stranded-bundle baz/baz.v1.0.1"

func TestMigration5JunkRows(t *testing.T) {
	for _, level := range []int{5, 9, 13} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			bs := smallFBBBundles(t)
			clean := readAll(t, openPath(t, buildDB(t, level, bs)))
			db := openPath(t, buildDB(t, level, bs, dbbuild.WithMigration5JunkRows()))
			require.Len(t, db.Repairs(), 1)
			r := db.Repairs()[0]
			assert.Equal(t, RepairNullNameRows, r.Kind)
			assert.Equal(t, "operatorbundle", r.Table)
			assert.Contains(t, r.Detail, "10 operatorbundle row(s) with NULL name")
			all := readAll(t, db)
			want := []string{strandedBaz}
			for _, pd := range clean {
				for _, b := range append(pd.Bundles, pd.Stranded...) {
					want = append(want, fmt.Sprintf("%s %s/%s", RepairNullVersion, pd.Package.Name, b.Name))
				}
			}
			sort.Strings(want)
			assert.Equal(t, want, withoutKind(allRepairLines(all), RepairDerived))
			for name, pd := range all {
				for i, b := range pd.Bundles {
					wb := clean[name].Bundles[i]
					assert.Equal(t, wb.Version, b.Version, b.Name)
					assert.Equal(t, wb.SkipRange, b.SkipRange, b.Name)
					assert.Equal(t, sortedProps(wb.Properties), sortedProps(b.Properties), b.Name)
					assert.ElementsMatch(t, wb.ProvidedAPIs, b.ProvidedAPIs, b.Name)
					assert.ElementsMatch(t, wb.RequiredAPIs, b.RequiredAPIs, b.Name)
					assert.Equal(t, wb.Replaces, b.Replaces, b.Name)
					assert.Equal(t, wb.Skips, b.Skips, b.Name)
				}
				for _, r := range repairsOf(pd.Repairs, RepairNullVersion) {
					assert.Contains(t, r.Detail, "version and skiprange are NULL")
					assert.Contains(t, r.Detail, "from the CSV's spec.version")
				}
			}
		})
	}
}

func TestCorruptDependencies(t *testing.T) {
	etcdCluster := Dependency{Type: "olm.gvk", Value: `{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}`}
	testAPI := Dependency{Type: "olm.gvk", Value: `{"group":"testapi.coreos.com","kind":"testapi","version":"v1"}`}
	for _, level := range []int{9, 10, 13} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			db := openPath(t, buildDB(t, level, opmBundles(t), dbbuild.WithCorruptDependencies()))
			require.Len(t, db.Repairs(), 1)
			assert.Equal(t, RepairCorruptDependencies, db.Repairs()[0].Kind)
			assert.Contains(t, db.Repairs()[0].Detail, "operator-registry#519")
			all := readAll(t, db)
			assert.Equal(t, []string{
				"corrupt-dependencies etcd/etcdoperator.v0.9.2",
				"corrupt-dependencies prometheus/prometheusoperator.0.22.2",
			}, allRepairLines(all))
			etcd := bundleByName(all["etcd"], "etcdoperator.v0.9.2")
			require.NotNil(t, etcd)
			// The first row keeps its genuine value; the CSV-required API is
			// re-derived from api_requirer; the olm.constraint is lost.
			assert.ElementsMatch(t, []Dependency{testAPI, etcdCluster}, etcd.Dependencies)
			r := repairsOf(all["etcd"].Repairs, RepairCorruptDependencies)[0]
			assert.Contains(t, r.Detail, "re-derived 1 olm.gvk dependency(ies) from api_requirer")
			assert.Contains(t, r.Detail, "1 dependency(ies)")
			prom := bundleByName(all["prometheus"], "prometheusoperator.0.22.2")
			require.NotNil(t, prom)
			assert.Empty(t, prom.Dependencies)
		})
	}
	t.Run("small-fbb type mismatch", func(t *testing.T) {
		db := openPath(t, buildDB(t, 13, smallFBBBundles(t), dbbuild.WithCorruptDependencies()))
		require.Len(t, db.Repairs(), 1)
		assert.Contains(t, db.Repairs()[0].Detail, "olm.gvk rows")
		all := readAll(t, db)
		assert.Equal(t, []string{
			"corrupt-dependencies foo/foo.v0.1.0", "corrupt-dependencies foo/foo.v0.2.0",
			"corrupt-dependencies foo/foo.v0.3.0", "corrupt-dependencies foo/foo.v0.3.1",
			strandedBaz,
		}, allRepairLines(all))
		for _, b := range all["foo"].Bundles {
			for _, d := range b.Dependencies {
				assert.True(t, valueFits(d.Type, d.Value), "%s: %v", b.Name, d)
			}
		}
	})
}

func TestClearedNonHeads(t *testing.T) {
	for _, level := range []int{2, 5, 9, 13} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			bs := smallFBBBundles(t)
			clean := readAll(t, openPath(t, buildDB(t, level, bs)))
			db := openPath(t, buildDB(t, level, bs, dbbuild.WithClearedNonHeads()))
			assert.Empty(t, db.Repairs())
			all := readAll(t, db)
			cleared := []string{"bar/bar.v0.1.0", "baz/baz.v1.0.0", "baz/baz.v1.0.1", "foo/foo.v0.1.0", "foo/foo.v0.3.0"}
			var want []string
			for _, c := range cleared {
				want = append(want, string(RepairMissingManifests)+" "+c)
				if level < 5 {
					// No version column and no CSV: the name tells.
					want = append(want, string(RepairNullVersion)+" "+c)
				}
			}
			want = append(want, strandedBaz)
			sort.Strings(want)
			assert.Equal(t, want, withoutKind(allRepairLines(all), RepairDerived))
			for name, pd := range all {
				for i, b := range pd.Bundles {
					wb := clean[name].Bundles[i]
					assert.Equal(t, wb.Version, b.Version, b.Name)
					assert.Equal(t, wb.BundlePath, b.BundlePath, b.Name)
					if bundleCleared(cleared, name, b.Name) {
						assert.Nil(t, b.CSV, b.Name)
						assert.Nil(t, b.Objects, b.Name)
						if level >= 9 {
							assert.Equal(t, sortedProps(wb.Properties), sortedProps(b.Properties), b.Name)
						}
					} else {
						assert.Equal(t, wb.Objects, b.Objects, b.Name)
						assert.Equal(t, wb.Properties, b.Properties, b.Name)
					}
				}
			}
		})
	}
}

func bundleCleared(cleared []string, pkg, name string) bool {
	for _, c := range cleared {
		if c == pkg+"/"+name {
			return true
		}
	}
	return false
}

func TestMissingDefaultChannel(t *testing.T) {
	for _, level := range []int{0, 13} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			bs := smallFBBBundles(t)
			db := openPath(t, buildDB(t, level, bs, dbbuild.WithMissingDefaultChannel()))
			all := readAll(t, db)
			assert.Equal(t, []string{
				"missing-default-channel bar/", "missing-default-channel baz/", "missing-default-channel foo/", strandedBaz,
			}, withoutKind(allRepairLines(all), RepairDerived))
			assert.Equal(t, "stable", all["bar"].Package.DefaultChannel)
			assert.Equal(t, "stable", all["baz"].Package.DefaultChannel)
			assert.Equal(t, "beta", all["foo"].Package.DefaultChannel)
			r := repairsOf(all["baz"].Repairs, RepairMissingDefaultChannel)[0]
			assert.Contains(t, r.Detail, `"no-such-channel"`)
			assert.Contains(t, r.Detail, "only channel")
			r = repairsOf(all["bar"].Repairs, RepairMissingDefaultChannel)[0]
			assert.Contains(t, r.Detail, "highest version (1.0.0)")
		})
	}
	t.Run("null default and no channels", func(t *testing.T) {
		path := buildDB(t, 13, smallFBBBundles(t))
		testinput.ExecSQL(t, path,
			`UPDATE package SET default_channel = NULL WHERE name = 'bar'`,
			`INSERT INTO package(name, default_channel) VALUES ('empty', 'stable')`)
		all := readAll(t, openPath(t, path))
		assert.Equal(t, "stable", all["bar"].Package.DefaultChannel)
		assert.Contains(t, repairsOf(all["bar"].Repairs, RepairMissingDefaultChannel)[0].Detail, "empty/NULL")
		assert.Equal(t, "stable", all["empty"].Package.DefaultChannel)
		assert.Contains(t, repairsOf(all["empty"].Repairs, RepairMissingDefaultChannel)[0].Detail, "no channel rows")
		assert.Empty(t, all["empty"].Bundles)
	})
}

func TestNullPropertyPath(t *testing.T) {
	for _, level := range []int{9, 10, 13} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			bs := smallFBBBundles(t)
			clean := readAll(t, openPath(t, buildDB(t, level, bs)))
			all := readAll(t, openPath(t, buildDB(t, level, bs, dbbuild.WithNullPropertyPath())))
			assert.Equal(t, []string{
				"null-property-path bar/", "null-property-path baz/", "null-property-path foo/", strandedBaz,
			}, allRepairLines(all))
			assert.Contains(t, repairsOf(all["foo"].Repairs, RepairNullPropertyPath)[0].Detail, "4 bundle(s)")
			for name, pd := range all {
				for i, b := range pd.Bundles {
					assert.Equal(t, "", b.BundlePath)
					wb := clean[name].Bundles[i]
					assert.Equal(t, sortedProps(wb.Properties), sortedProps(b.Properties), b.Name)
					assert.Equal(t, sortedDeps(wb.Dependencies), sortedDeps(b.Dependencies), b.Name)
				}
			}
		})
	}
}

func TestStranded(t *testing.T) {
	for _, level := range []int{-1, 5, 9, 13} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			all := readAll(t, openPath(t, buildDB(t, level, smallFBBBundles(t))))
			baz := all["baz"]
			require.Len(t, baz.Stranded, 1)
			b := baz.Stranded[0]
			assert.Equal(t, "baz.v1.0.1", b.Name)
			assert.Equal(t, "1.0.1", b.Version)
			assert.Equal(t, []string{"baz.v1.0.0"}, b.Skips)
			assert.Contains(t, sortedProps(b.Properties), `olm.gvk {"group":"test.baz","kind":"Baz","version":"v1"}`)
			assert.Contains(t, sortedProps(b.Properties), `olm.package {"packageName":"baz","version":"1.0.1"}`)
			assert.NotEmpty(t, b.Objects)
			r := repairsOf(baz.Repairs, RepairStranded)
			require.Len(t, r, 1)
			if level >= 9 {
				assert.Contains(t, r[0].Detail, "olm.package property")
			} else {
				assert.Contains(t, r[0].Detail, "replaces/skips naming baz.v1.0.0")
			}
		})
	}
	t.Run("no package", func(t *testing.T) {
		path := buildDB(t, 13, smallFBBBundles(t))
		testinput.ExecSQL(t, path, `INSERT INTO operatorbundle(name, version, bundlepath) VALUES ('mystery.v1.0.0', '1.0.0', 'example.com/mystery:v1')`)
		db := openPath(t, path)
		require.Len(t, db.Repairs(), 1)
		assert.Equal(t, RepairStranded, db.Repairs()[0].Kind)
		assert.Equal(t, "mystery.v1.0.0", db.Repairs()[0].Bundle)
		assert.Empty(t, db.Repairs()[0].Package)
	})
	t.Run("by name", func(t *testing.T) {
		path := buildDB(t, 13, smallFBBBundles(t))
		testinput.ExecSQL(t, path, `INSERT INTO operatorbundle(name, version, bundlepath) VALUES ('foo.v9.0.0', NULL, 'example.com/foo:v9')`)
		all := readAll(t, openPath(t, path))
		require.Len(t, all["foo"].Stranded, 1)
		b := all["foo"].Stranded[0]
		assert.Equal(t, "9.0.0", b.Version)
		assert.Equal(t, []string{
			"derived foo/", "missing-manifests foo/foo.v9.0.0", "null-version foo/foo.v9.0.0", "stranded-bundle foo/foo.v9.0.0",
		}, repairLines(all["foo"].Repairs))
		assert.Contains(t, repairsOf(all["foo"].Repairs, RepairDerived)[0].Detail, "olm.package property (none stored)")
		assert.Contains(t, repairsOf(all["foo"].Repairs, RepairNullVersion)[0].Detail, "from the bundle name")
		assert.Equal(t, []Property{{Type: "olm.package", Value: `{"packageName":"foo","version":"9.0.0"}`}}, b.Properties)
	})
}

func TestDeprecatedLevels(t *testing.T) {
	for _, level := range []int{9, 11, 12, 13} {
		t.Run(fmt.Sprintf("level%d", level), func(t *testing.T) {
			all := readAll(t, openPath(t, buildDB(t, level, smallFBBBundles(t), dbbuild.WithDeprecated("foo.v0.2.0"))))
			n := 0
			for _, pd := range all {
				for _, b := range pd.Bundles {
					if b.Deprecated {
						n++
						assert.Equal(t, "foo.v0.2.0", b.Name)
					}
				}
			}
			assert.Equal(t, 1, n)
		})
	}
}

func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.db")
	require.NoError(t, os.WriteFile(text, []byte("this is not a database\n"), 0o644))
	zero := filepath.Join(dir, "zero.db")
	require.NoError(t, os.WriteFile(zero, nil, 0o644))

	real, err := os.ReadFile(fixture("small-fbb"))
	require.NoError(t, err)
	truncated := filepath.Join(dir, "truncated.db")
	require.NoError(t, os.WriteFile(truncated, real[:len(real)/2], 0o644))
	headerOnly := filepath.Join(dir, "header.db")
	require.NoError(t, os.WriteFile(headerOnly, real[:50], 0o644))

	empty := filepath.Join(dir, "empty.db")
	testinput.ExecSQL(t, empty, `CREATE TABLE t(x)`, `DROP TABLE t`)
	partial := filepath.Join(dir, "partial.db")
	testinput.ExecSQL(t, partial, `CREATE TABLE package(name TEXT PRIMARY KEY, default_channel TEXT)`, `CREATE TABLE channel(name TEXT)`)
	other := filepath.Join(dir, "other.db")
	testinput.ExecSQL(t, other, `CREATE TABLE users(id INTEGER)`)

	real2, err := os.ReadFile(fixture("opreg-foo-index"))
	require.NoError(t, err)
	withJournal := filepath.Join(dir, "journal.db")
	require.NoError(t, os.WriteFile(withJournal, real2, 0o644))
	require.NoError(t, os.WriteFile(withJournal+"-journal", []byte("x"), 0o644))
	withWAL := filepath.Join(dir, "wal.db")
	require.NoError(t, os.WriteFile(withWAL, real2, 0o644))
	require.NoError(t, os.WriteFile(withWAL+"-wal", []byte("x"), 0o644))
	emptyJournal := filepath.Join(dir, "emptyjournal.db")
	require.NoError(t, os.WriteFile(emptyJournal, real2, 0o644))
	require.NoError(t, os.WriteFile(emptyJournal+"-journal", nil, 0o644))
	db := openPath(t, emptyJournal)
	assert.Equal(t, 12, db.Level(), "an empty journal is harmless")

	tests := []struct {
		name string
		path string
		want []string
	}{
		{"hot journal", withJournal, []string{withJournal, "journal.db-journal", "rollback journal"}},
		{"wal", withWAL, []string{withWAL, "wal.db-wal", "write-ahead log"}},
		{"text file", text, []string{text, "not a sqlite database"}},
		{"zero bytes", zero, []string{zero, "not a sqlite database"}},
		{"missing", filepath.Join(dir, "nope.db"), []string{"nope.db", "no such file"}},
		{"directory", dir, []string{dir, "not a sqlite database"}},
		{"truncated", truncated, []string{truncated, "truncated"}},
		{"header only", headerOnly, []string{headerOnly, "truncated"}},
		{"empty database", empty, []string{empty, "empty database"}},
		{"missing tables", partial, []string{partial, "missing table(s) channel_entry, operatorbundle"}},
		{"other database", other, []string{other, "missing table(s) channel, channel_entry, operatorbundle, package"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var before [32]byte
			if st, err := os.Stat(tc.path); err == nil && st.Mode().IsRegular() {
				before = fileSum(t, tc.path)
			}
			db, err := Open(context.Background(), tc.path)
			require.Error(t, err)
			assert.Nil(t, db)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
			if st, err := os.Stat(tc.path); err == nil && st.Mode().IsRegular() {
				assert.Equal(t, before, fileSum(t, tc.path), "file bytes changed")
			}
		})
	}
}

// TestPathEscaping opens a database whose path holds URI metacharacters.
func TestPathEscaping(t *testing.T) {
	real, err := os.ReadFile(fixture("opreg-foo-index"))
	require.NoError(t, err)
	dir := filepath.Join(t.TempDir(), "a dir?x=1#frag%20")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, "index 1.db")
	require.NoError(t, os.WriteFile(path, real, 0o644))
	db := openPath(t, path)
	names, err := db.PackageNames(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"foo"}, names)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no journal or other file created beside the database")
}

func TestOrphanRows(t *testing.T) {
	path := buildDB(t, 13, smallFBBBundles(t))
	testinput.ExecSQL(t, path,
		`DELETE FROM package WHERE name = 'baz'`,
		`INSERT INTO related_image(image, operatorbundle_name) VALUES ('example.com/gone:v1', 'gone.v1.0.0'), ('example.com/gone:v2', 'gone.v2.0.0')`,
		`INSERT INTO properties(type, value, operatorbundle_name) VALUES ('olm.package', '{"packageName":"gone","version":"1.0.0"}', 'gone.v1.0.0')`)
	db := openPath(t, path)
	names, err := db.PackageNames(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"bar", "foo"}, names)
	var lines []string
	for _, r := range db.Repairs() {
		lines = append(lines, fmt.Sprintf("%s %s %s", r.Kind, r.Table, r.Package))
	}
	// baz's bundles have entries (of a package without a row), except the
	// stranded baz.v1.0.1, which now belongs to no package.
	assert.Equal(t, []string{
		"orphan-rows channel_entry baz",
		"orphan-rows properties ",
		"orphan-rows related_image ",
		"stranded-bundle channel_entry ",
	}, lines)
	assert.Contains(t, db.Repairs()[2].Detail, "2 related_image row(s)")
	assert.Contains(t, db.Repairs()[2].Detail, "gone.v1.0.0, gone.v2.0.0")
}

func TestHalfMissingManifests(t *testing.T) {
	path := buildDB(t, 13, smallFBBBundles(t))
	testinput.ExecSQL(t, path,
		`UPDATE operatorbundle SET csv = NULL, version = NULL WHERE name = 'foo.v0.3.1'`,
		`UPDATE operatorbundle SET bundle = NULL WHERE name = 'bar.v0.2.0'`)
	clean := readAll(t, openPath(t, buildDB(t, 13, smallFBBBundles(t))))
	all := readAll(t, openPath(t, path))
	assert.Equal(t, []string{
		"missing-manifests bar/bar.v0.2.0", "missing-manifests foo/foo.v0.3.1", "null-version foo/foo.v0.3.1", strandedBaz,
	}, allRepairLines(all))
	foo := bundleByName(all["foo"], "foo.v0.3.1")
	assert.JSONEq(t, string(bundleByName(clean["foo"], "foo.v0.3.1").CSV), string(foo.CSV))
	assert.Contains(t, repairsOf(all["foo"].Repairs, RepairMissingManifests)[0].Detail, "channel head")
	bar := bundleByName(all["bar"], "bar.v0.2.0")
	assert.NotNil(t, bar.CSV)
	assert.Nil(t, bar.Objects)
	assert.Contains(t, repairsOf(all["bar"].Repairs, RepairMissingManifests)[0].Detail, "only the CSV remains")

	skipped := readAll(t, openPath(t, path, SkipManifests()))
	assert.Equal(t, allRepairLines(all), allRepairLines(skipped))
	assert.Nil(t, bundleByName(skipped["foo"], "foo.v0.3.1").CSV)
	for _, pds := range []map[string]*PackageData{all, skipped} {
		assert.Equal(t, "0.3.1", bundleByName(pds["foo"], "foo.v0.3.1").Version)
		assert.Contains(t, repairsOf(pds["foo"].Repairs, RepairNullVersion)[0].Detail, "from the CSV's spec.version")
	}
}

package legacy

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
)

// withoutStranded is what a lazy DB returns for pd: no stranded bundles
// and no stranded-bundle repair lines (a lazy DB runs no catalog-wide
// checks); the derived line's counts, which include stranded bundles,
// are compared by kind only. Manifests are compared by digest.
func withoutStranded(pd *PackageData, lazy bool) *PackageData {
	out := *pd
	out.Bundles = append([]Bundle(nil), pd.Bundles...)
	for i := range out.Bundles {
		b := &out.Bundles[i]
		b.CSV = digest(b.CSV)
		objs := b.Objects
		b.Objects = nil
		for _, o := range objs {
			b.Objects = append(b.Objects, digest(o))
		}
	}
	if !lazy {
		return &out
	}
	out.Stranded = nil
	out.Repairs = nil
	for _, r := range pd.Repairs {
		switch r.Kind {
		case RepairStranded:
			continue
		case RepairDerived:
			r.Detail = ""
		}
		out.Repairs = append(out.Repairs, r)
	}
	return &out
}

func digest(b []byte) []byte {
	if b == nil {
		return nil
	}
	s := sha256.Sum256(b)
	return s[:]
}

// loadEverything is the Open mode that loads every table at Open.
func loadEverything() Option { return func(o *openOptions) { o.eager = true } }

// assertLazyMatches reads every package of path with every table loaded
// at Open, with the rowid index (the default) and lazily (each with and
// without SkipManifests) and requires the same data (the lazy reader
// without stranded bundles) and the same database-wide repairs (not the
// lazy one); it returns whether the lazy open qualified for lazy reading.
func assertLazyMatches(t *testing.T, path string) bool {
	t.Helper()
	lazy := false
	for _, opts := range [][]Option{nil, {SkipManifests()}} {
		edb := openPath(t, path, append(opts, loadEverything())...)
		want := readAll(t, edb)
		idb := openPath(t, path, opts...)
		assert.Equal(t, edb.Repairs(), idb.Repairs())
		indexed := readAll(t, idb)
		for name, pd := range want {
			require.NotNil(t, indexed[name], name)
			assert.Equal(t, withoutStranded(pd, false), withoutStranded(indexed[name], false), name)
		}
		ldb := openPath(t, path, append(opts, Lazy())...)
		lazy = ldb.IsLazy()
		got := readAll(t, ldb)
		require.Len(t, got, len(want))
		for name, pd := range want {
			require.NotNil(t, got[name], name)
			assert.Equal(t, withoutStranded(pd, lazy), withoutStranded(got[name], lazy), name)
		}
	}
	return lazy
}

// TestLazyMatchesEager: a lazy DB reads every package of every real
// fixture and of the same bundles built at every schema level exactly as
// an eager one does (stranded bundles aside); the levels and damage that
// need the whole catalog fall back to eager reading.
func TestLazyMatchesEager(t *testing.T) {
	dirs, err := os.ReadDir(fixtures)
	require.NoError(t, err)
	lazyFixtures := 0
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			if assertLazyMatches(t, fixture(d.Name())) {
				lazyFixtures++
			}
		})
	}
	assert.GreaterOrEqual(t, lazyFixtures, len(dirs)-2, "most fixtures qualify for lazy reading")
	bs := smallFBBBundles(t)
	for level := dbbuild.MinLevel; level <= dbbuild.MaxLevel; level++ {
		t.Run(fmt.Sprintf("small-fbb/level%d", level), func(t *testing.T) {
			lazy := assertLazyMatches(t, buildDB(t, level, bs))
			db := openPath(t, buildDB(t, level, bs), Lazy())
			assert.Equal(t, !db.apiKeyedByEntry(), lazy)
		})
	}
}

// TestLazyScatteredRows: rows of a bundle apart from the others (added
// later) and rows of other bundles inside a merged range are read right.
func TestLazyScatteredRows(t *testing.T) {
	path := buildDB(t, 13, smallFBBBundles(t))
	for _, table := range []string{"properties", "dependencies"} {
		testinput.ExecSQL(t, path, `INSERT INTO `+table+`(type, value, operatorbundle_name, operatorbundle_version, operatorbundle_path)
			SELECT 'olm.test', '{"late":true}', operatorbundle_name, operatorbundle_version, operatorbundle_path FROM `+table+` ORDER BY rowid LIMIT 1`)
	}
	testinput.ExecSQL(t, path, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 100)
			INSERT INTO related_image(image, operatorbundle_name) SELECT 'filler.example/img:' || i, (SELECT name FROM operatorbundle ORDER BY name DESC LIMIT 1) FROM n`,
		`INSERT INTO related_image(image, operatorbundle_name) SELECT 'late.example/img:1', name FROM operatorbundle ORDER BY name LIMIT 1`,
		`INSERT INTO related_image(image, operatorbundle_name) SELECT 'late.example/img:2', name FROM operatorbundle ORDER BY name DESC LIMIT 1`)
	require.True(t, assertLazyMatches(t, path))
	x, err := openPath(t, path, Lazy()).index(context.Background())
	require.NoError(t, err)
	scattered := len(x.keyed[2].more)
	assert.Positive(t, scattered, "bundles whose rows lie in several runs")
}

// TestLazySegments: the index reads the row that starts each segment of
// equal names; deleted rowids, NULL and empty names between a bundle's
// rows, and names that alternate row by row still read every row right.
func TestLazySegments(t *testing.T) {
	path := buildDB(t, 13, smallFBBBundles(t))
	const first = `(SELECT name FROM operatorbundle ORDER BY name LIMIT 1)`
	const last = `(SELECT name FROM operatorbundle ORDER BY name DESC LIMIT 1)`
	testinput.ExecSQL(t, path,
		`DELETE FROM properties WHERE rowid IN (SELECT rowid FROM properties ORDER BY rowid LIMIT 2 OFFSET 3)`,
		`INSERT INTO properties(type, value, operatorbundle_name) VALUES ('olm.test', '{"n":0}', NULL)`,
		`INSERT INTO properties(type, value, operatorbundle_name, operatorbundle_version, operatorbundle_path)
			SELECT 'olm.test', '{"n":' || i || '}', CASE WHEN i % 2 = 0 THEN `+first+` ELSE `+last+` END,
				(SELECT version FROM operatorbundle WHERE name = CASE WHEN i % 2 = 0 THEN `+first+` ELSE `+last+` END),
				(SELECT bundlepath FROM operatorbundle WHERE name = CASE WHEN i % 2 = 0 THEN `+first+` ELSE `+last+` END)
			FROM (SELECT 1 AS i UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4)`,
		`INSERT INTO api_provider(group_name, version, kind, operatorbundle_name) VALUES ('g.example', 'v1', 'K', '')`,
		`INSERT INTO api_provider(group_name, version, kind, operatorbundle_name, operatorbundle_version, operatorbundle_path)
			SELECT group_name, version, kind, operatorbundle_name, operatorbundle_version, operatorbundle_path FROM api_provider ORDER BY rowid LIMIT 1`)
	require.True(t, assertLazyMatches(t, path))
	db := openPath(t, path)
	assert.Empty(t, repairsOf(db.Repairs(), RepairAttachedByName), "every row keyed by its bundle")
}

// TestLazyFallsBackOnCorruptDependencies: migration 9's signature (every
// dependencies row one value) needs the whole table in view.
func TestLazyFallsBackOnCorruptDependencies(t *testing.T) {
	path := buildDB(t, 13, smallFBBBundles(t))
	testinput.ExecSQL(t, path, `UPDATE dependencies SET value = (SELECT value FROM dependencies ORDER BY rowid LIMIT 1)`)
	db := openPath(t, path, Lazy())
	assert.False(t, db.IsLazy())
	assertLazyMatches(t, path)
}

// TestRowRunsRanges: runs of several keys merge when close together, stay
// apart otherwise, and come sorted.
func TestRowRunsRanges(t *testing.T) {
	var r rowRuns
	keys := []int32{0, 0, 1, 1, 0, 2}
	for i, k := range keys {
		r.add(k, int64(i+1), i > 0 && k == keys[i-1])
	}
	r.add(3, 1000, false)
	r.add(0, 2000, false)
	r.add(0, 2001, true)
	assert.Equal(t, []rowRun{{1, 5}, {2000, 2001}}, r.runsOf(0), "a run close to the last one extends it")
	assert.Equal(t, []rowRun{{3, 6}, {1000, 1000}}, r.ranges([]int32{3, 2, 1}))
	assert.Equal(t, []rowRun{{1, 5}, {2000, 2001}}, r.ranges([]int32{0}))
	assert.Empty(t, r.ranges([]int32{7}))
	assert.False(t, r.has(7))
}

// TestLazyOpenReadsNoBundleTables: a lazy Open reads the schema and the
// package and channel tables only; the first ReadPackage builds the
// index, and a cancelled context then fails with an error.
func TestLazyOpenReadsNoBundleTables(t *testing.T) {
	path := buildDB(t, 13, smallFBBBundles(t))
	// A row Open would trip over if it read channel_entry: a text depth.
	testinput.ExecSQL(t, path, `UPDATE channel_entry SET depth = 'x' WHERE rowid = (SELECT max(rowid) FROM channel_entry)`)
	db := openPath(t, path, Lazy())
	require.True(t, db.IsLazy())
	names, err := db.PackageNames(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, names)
	_, err = db.ReadPackage(context.Background(), names[0])
	require.Error(t, err, "the first read indexes channel_entry")
	assert.Contains(t, err.Error(), "channel_entry")
	_, err = Open(context.Background(), path)
	require.Error(t, err, "an eager Open reads channel_entry")
}

// TestReadPackageWithObjects: on a DB opened with SkipManifests,
// ReadPackageWithObjects reads every package of every fixture (lazily or
// not) as ReadPackage does on a DB that keeps the manifests, but for the
// CSV, with each bundle's objects what BundleManifests returns;
// ReadPackage still leaves the manifests out.
func TestReadPackageWithObjects(t *testing.T) {
	dirs, err := os.ReadDir(fixtures)
	require.NoError(t, err)
	ctx := context.Background()
	for _, d := range dirs {
		for _, mode := range [][]Option{nil, {Lazy()}} {
			want := readAll(t, openPath(t, fixture(d.Name()), mode...))
			db := openPath(t, fixture(d.Name()), append(mode, SkipManifests())...)
			for name, pd := range want {
				for _, bs := range [][]Bundle{pd.Bundles, pd.Stranded} {
					for i := range bs {
						bs[i].CSV = nil
					}
				}
				got, err := db.ReadPackageWithObjects(ctx, name)
				require.NoError(t, err, name)
				assert.Equal(t, pd, got, name)
				for _, b := range got.Bundles {
					if unreadableBundle(b) {
						continue
					}
					_, objs, err := db.BundleManifests(ctx, b.Name)
					require.NoError(t, err, b.Name)
					assert.Equal(t, objs, b.Objects, b.Name)
				}
				skipped, err := db.ReadPackage(ctx, name)
				require.NoError(t, err, name)
				for _, b := range skipped.Bundles {
					assert.Nil(t, b.CSV, b.Name)
					assert.Nil(t, b.Objects, b.Name)
				}
			}
		}
	}
}

// unreadableBundle reports whether b's bundle column could not be split.
func unreadableBundle(b Bundle) bool {
	for _, u := range b.Unreadable {
		if u.Column == "bundle" {
			return true
		}
	}
	return false
}

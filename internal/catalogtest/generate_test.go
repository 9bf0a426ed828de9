package catalogtest

import (
	"bytes"
	"context"
	"database/sql"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/fixtures/dbbuild"
)

const etcd = "../../fixtures/bundles/opm-bundles/etcd.0.9.2"

func jsonOf(tb testing.TB, opts ...Option) []byte {
	tb.Helper()
	var buf bytes.Buffer
	require.NoError(tb, MustGenerate(tb, opts...).WriteJSON(&buf))
	return buf.Bytes()
}

// TestGenerateDeterministic: the same options give the same bytes, and
// different sizes different ones.
func TestGenerateDeterministic(t *testing.T) {
	for _, opts := range [][]Option{
		{WithPackages(3)},
		{WithBundles(30), WithBundlesPerPackage(12), WithoutImages()},
		{WithBundles(30), LegacyBenchIndex(etcd)},
	} {
		a, b := jsonOf(t, opts...), jsonOf(t, opts...)
		require.NotEmpty(t, a)
		assert.True(t, bytes.Equal(a, b), "two generations differ")
		assert.NotEqual(t, a, jsonOf(t, append(opts, WithBundles(31))...))
	}
}

// TestGenerateShape counts packages, channels, entries and bundles, and
// checks the edges of each layout.
func TestGenerateShape(t *testing.T) {
	for _, tc := range []struct {
		name       string
		opts       []Option
		bundles    []int   // per package
		entries    [][]int // per package, per channel
		firstEdges string  // replaces of each channel's first entry
	}{
		{"default", nil, []int{25}, [][]int{{25, 13}}, "|"},
		{"packages", []Option{WithPackages(2), WithBundlesPerPackage(6)}, []int{6, 6}, [][]int{{6, 3}, {6, 3}}, "|"},
		{"bundles, last package smaller", []Option{WithBundles(30), WithBundlesPerPackage(12)}, []int{12, 12, 6}, [][]int{{12, 6}, {12, 6}, {6, 3}}, "|"},
		{"three channels", []Option{WithChannels(3), WithBundlesPerPackage(9)}, []int{9}, [][]int{{9, 6, 3}}, "||"},
		{"every bundle in every channel", []Option{WithBundles(4), WithChannels(2), WithEveryBundleInEveryChannel()}, []int{4}, [][]int{{4, 4}}, "|"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := MustGenerate(t, tc.opts...)
			var bundles []int
			var entries [][]int
			var firstEdges []string
			for p := range c.Packages() {
				bundles = append(bundles, len(p.Bundles))
				var n []int
				firstEdges = firstEdges[:0]
				for _, ch := range p.Channels {
					n = append(n, len(ch.Entries))
					firstEdges = append(firstEdges, ch.Entries[0].Replaces)
				}
				entries = append(entries, n)
				last := p.Bundles[len(p.Bundles)-1]
				assert.Equal(t, "stable", p.DefaultChannel)
				assert.Contains(t, string(last.CSV()), `"replaces":"`+p.Name+".v1."+strconv.Itoa(len(p.Bundles)-2)+`.0"`)
			}
			assert.Equal(t, tc.bundles, bundles)
			assert.Equal(t, tc.entries, entries)
			assert.Equal(t, tc.firstEdges, strings.Join(firstEdges, "|"))
			assert.Equal(t, len(bundles), c.NumPackages())
		})
	}
}

// TestGenerateErrors: bad sizes and a base bundle without a CSV are
// errors naming the problem.
func TestGenerateErrors(t *testing.T) {
	_, err := Generate(WithBundlesPerPackage(0))
	require.ErrorContains(t, err, "must be positive")
	_, err = Generate(WithBaseDir(t.TempDir()))
	require.ErrorContains(t, err, "manifests")
}

// TestManifestBytes: the built-in manifests grow with WithManifestBytes,
// to about the size asked.
func TestManifestBytes(t *testing.T) {
	size := func(n int) int {
		var total int
		for p := range MustGenerate(t, WithManifestBytes(n), WithBundlesPerPackage(1)).Packages() {
			for _, o := range p.Bundles[0].Objects {
				total += len(o)
			}
		}
		return total
	}
	small, large := size(0), size(8500)
	assert.Less(t, small, 2000)
	assert.InDelta(t, 8500, large, 1000)
}

func rowsOf(t testing.TB, db *sql.DB, q string) []string {
	t.Helper()
	rows, err := db.Query(q)
	require.NoError(t, err, q)
	defer rows.Close()
	cols, err := rows.Columns()
	require.NoError(t, err)
	var out []string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		require.NoError(t, rows.Scan(ptrs...))
		parts := make([]string, len(cols))
		for i, v := range vals {
			parts[i] = v.String
		}
		out = append(out, strings.Join(parts, "|"))
	}
	require.NoError(t, rows.Err())
	return out
}

// TestLegacyBenchIndex builds a legacy index of the benchmark shape and
// checks its rows: packages of 25 bundles in stable and fast, edges,
// images, per-package API groups and real-size columns.
func TestLegacyBenchIndex(t *testing.T) {
	bs := MustGenerate(t, WithBundles(60), LegacyBenchIndex(etcd)).DBBundles()
	require.Len(t, bs, 60)
	path := filepath.Join(t.TempDir(), "index.db")
	require.NoError(t, dbbuild.Build(context.Background(), path, 13, bs))
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	assert.Equal(t, []string{"pkg-0000|stable", "pkg-0001|stable", "pkg-0002|stable"}, rowsOf(t, db, `SELECT * FROM package ORDER BY name`))
	assert.Equal(t, []string{"fast|pkg-0002|pkg-0002.v1.9.0", "stable|pkg-0002|pkg-0002.v1.9.0"},
		rowsOf(t, db, `SELECT * FROM channel WHERE package_name = 'pkg-0002' ORDER BY name`))
	// Every bundle is on a channel; one skip per bundle but the first.
	assert.Equal(t, []string{"0"}, rowsOf(t, db, `SELECT count(*) FROM operatorbundle WHERE name NOT IN (SELECT operatorbundle_name FROM channel_entry)`))
	assert.Equal(t, []string{"pkg-0001.v1.4.0|pkg-0001.v1.3.0|pkg-0001.v1.3.1|1.4.0|quay.io/olmcat-bench/pkg-0001-bundle:v1.4.0"},
		rowsOf(t, db, `SELECT name, replaces, skips, version, bundlepath FROM operatorbundle WHERE name = 'pkg-0001.v1.4.0'`))
	assert.Equal(t, []string{"pkg-0001.bench.example.com"}, rowsOf(t, db, `SELECT DISTINCT group_name FROM api_provider WHERE operatorbundle_name LIKE 'pkg-0001.%'`))
	// Real-size columns, for every bundle.
	sizes := rowsOf(t, db, `SELECT min(length(csv)) > 14000, min(length(bundle)) > 15000, count(*) FROM operatorbundle WHERE csv IS NOT NULL`)
	assert.Equal(t, []string{"1|1|60"}, sizes)
	assert.Equal(t, []string{"60"}, rowsOf(t, db, `SELECT count(DISTINCT image) FROM related_image WHERE image LIKE 'quay.io/coreos/etcd-operator@%'`))
}

func BenchmarkBuildLegacyBenchIndex200(b *testing.B) {
	bs := MustGenerate(b, WithBundles(200), LegacyBenchIndex(etcd)).DBBundles()
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		require.NoError(b, dbbuild.Build(context.Background(), filepath.Join(dir, "index"+strconv.Itoa(i)+".db"), 13, bs))
		i++
	}
}

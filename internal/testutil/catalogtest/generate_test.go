package catalogtest

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const etcd = "../../../fixtures/bundles/opm-bundles/etcd.0.9.2"

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

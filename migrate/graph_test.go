package migrate

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/legacy"
)

// entries builds channel_entry rows from (id, channel, bundle, replaces, depth).
func entries(pkg string, rows ...[5]any) []legacy.ChannelEntry {
	var out []legacy.ChannelEntry
	for _, r := range rows {
		out = append(out, legacy.ChannelEntry{ID: int64(r[0].(int)), Channel: r[1].(string), Package: pkg, Bundle: r[2].(string), Replaces: int64(r[3].(int)), Depth: int64(r[4].(int))})
	}
	return out
}

// smallFBBFoo are the real channel_entry rows of package foo in the
// small-fbb fixture (semver mode with skips of absent bundles).
var smallFBBFoo = entries("foo",
	[5]any{8, "beta", "foo.v0.3.1", 11, 0},
	[5]any{9, "beta", "foo.v0.3.0", 0, 1},
	[5]any{10, "beta", "foo.v0.3.1", 9, 1},
	[5]any{11, "beta", "foo.v0.2.0", 16, 2},
	[5]any{12, "beta", "foo.v0.1.1", 0, 3},
	[5]any{13, "beta", "foo.v0.2.0", 12, 3},
	[5]any{14, "beta", "foo.v0.1.2", 0, 4},
	[5]any{15, "beta", "foo.v0.2.0", 14, 4},
	[5]any{16, "beta", "foo.v0.1.0", 0, 5},
	[5]any{17, "stable", "foo.v0.2.0", 22, 0},
	[5]any{18, "stable", "foo.v0.1.1", 0, 1},
	[5]any{19, "stable", "foo.v0.2.0", 18, 1},
	[5]any{20, "stable", "foo.v0.1.2", 0, 2},
	[5]any{21, "stable", "foo.v0.2.0", 20, 2},
	[5]any{22, "stable", "foo.v0.1.0", 0, 3},
)

func TestChannelEdges(t *testing.T) {
	tests := []struct {
		name     string
		entries  []legacy.ChannelEntry
		want     map[string]map[string]edges
		dangling int
	}{
		{
			name:    "small-fbb foo: real chain vs synthetic skip entries",
			entries: smallFBBFoo,
			want: map[string]map[string]edges{
				"beta": {
					"foo.v0.3.1": {replaces: "foo.v0.2.0", skips: []string{"foo.v0.3.0"}},
					"foo.v0.3.0": {},
					"foo.v0.2.0": {replaces: "foo.v0.1.0", skips: []string{"foo.v0.1.1", "foo.v0.1.2"}},
					"foo.v0.1.1": {},
					"foo.v0.1.2": {},
					"foo.v0.1.0": {},
				},
				"stable": {
					"foo.v0.2.0": {replaces: "foo.v0.1.0", skips: []string{"foo.v0.1.1", "foo.v0.1.2"}},
					"foo.v0.1.1": {},
					"foo.v0.1.2": {},
					"foo.v0.1.0": {},
				},
			},
		},
		{
			name: "truncated by deprecation: replaces NULL on the deprecated entries",
			entries: entries("foo",
				[5]any{8, "beta", "foo.v0.3.1", 11, 0},
				[5]any{9, "beta", "foo.v0.3.0", 0, 1},
				[5]any{10, "beta", "foo.v0.3.1", 9, 1},
				[5]any{11, "beta", "foo.v0.2.0", 0, 2},
				[5]any{13, "beta", "foo.v0.2.0", 0, 3},
			),
			want: map[string]map[string]edges{
				"beta": {
					"foo.v0.3.1": {replaces: "foo.v0.2.0", skips: []string{"foo.v0.3.0"}},
					"foo.v0.3.0": {},
					"foo.v0.2.0": {},
				},
			},
		},
		{
			name: "two real entries of one bundle: the greatest replaced name wins",
			entries: entries("p",
				[5]any{1, "c", "p.v2", 3, 0},
				[5]any{2, "c", "p.v2", 4, 0},
				[5]any{3, "c", "p.a", 0, 1},
				[5]any{4, "c", "p.b", 0, 1},
			),
			want: map[string]map[string]edges{
				"c": {"p.v2": {replaces: "p.b"}, "p.a": {}, "p.b": {}},
			},
		},
		{
			name: "dangling entry id is ignored",
			entries: entries("p",
				[5]any{1, "c", "p.v2", 99, 0},
			),
			want:     map[string]map[string]edges{"c": {"p.v2": {}}},
			dangling: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, dangling := channelEdges(tt.entries, 0)
			assert.Equal(t, tt.dangling, len(dangling))
			flat := map[string]map[string]edges{}
			for ch, m := range got {
				flat[ch] = map[string]edges{}
				for b, e := range m {
					flat[ch][b] = *e
				}
			}
			assert.Equal(t, tt.want, flat)
		})
	}
}

func TestCheckGraph(t *testing.T) {
	tests := []struct {
		name    string
		entries []graphEntry
		want    Kind
		bundles []string
	}{
		{name: "valid chain with skips and dangling tail", entries: []graphEntry{
			{name: "a.3", replaces: "a.2", skips: []string{"a.2x"}},
			{name: "a.2", replaces: "a.1"},
			{name: "a.2x"},
		}},
		{name: "empty", want: ProblemEmptyChannel},
		{name: "two heads", entries: []graphEntry{{name: "a.1"}, {name: "a.2"}}, want: ProblemMultipleHeads, bundles: []string{"a.1", "a.2"}},
		{name: "no head", entries: []graphEntry{{name: "a.1", replaces: "a.2"}, {name: "a.2", replaces: "a.1"}}, want: ProblemNoHead},
		{name: "cycle below head", entries: []graphEntry{
			{name: "a.3", replaces: "a.2"}, {name: "a.2", replaces: "a.1"}, {name: "a.1", replaces: "a.2"},
		}, want: ProblemCycle, bundles: []string{"a.2"}},
		{name: "cycle behind a skipped bundle is not walked", entries: []graphEntry{
			{name: "a.3", replaces: "a.2", skips: []string{"a.2", "a.1"}}, {name: "a.2", replaces: "a.1"}, {name: "a.1", replaces: "a.2"},
		}},
		{name: "unreachable: replaced only by a skipped-over branch", entries: []graphEntry{
			{name: "a.3", replaces: "a.2", skips: []string{"a.x"}}, {name: "a.2"}, {name: "a.x", replaces: "a.y"}, {name: "a.y", skips: []string{"a.z"}}, {name: "a.z"},
		}, want: ProblemUnreachable, bundles: []string{"a.y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := checkGraph(tt.entries)
			if tt.want == "" {
				require.Empty(t, got)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, tt.want, got[0].kind)
			assert.Equal(t, tt.bundles, got[0].bundles)
		})
	}
}

package parity

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protowire"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// testCatalog is a catalog of kinds with one package p (channel c, head
// b2 replacing b1, b3 skipping b1 too) on both sides.
func testCatalog(left, right input.Kind) *catalog {
	idx := [2]fixedIndex{{"p": newSideIndex()}, {"p": newSideIndex()}}
	cat := newCatalog([2]input.Kind{left, right}, [2]indexSource{idx[0], idx[1]})
	for s := range 2 {
		for _, b := range []*api.Bundle{
			{CsvName: "b1", PackageName: "p", ChannelName: "c", ProvidedApis: []*api.GroupVersionKind{{Group: "g", Version: "v1", Kind: "K"}}},
			{CsvName: "b2", PackageName: "p", ChannelName: "c", Replaces: "b1", ProvidedApis: []*api.GroupVersionKind{{Group: "g", Version: "v1", Kind: "K"}}},
			{CsvName: "b3", PackageName: "p", ChannelName: "c", Skips: []string{"b1"}},
		} {
			idx[s]["p"].addBundle(b)
		}
		p := &api.Package{Name: "p", DefaultChannelName: "c", Channels: []*api.Channel{{Name: "c", CsvName: "b2"}}}
		cat.setPackage(s, "p", p, idx[s]["p"])
	}
	return cat
}

// fixedIndex is an index source held in memory.
type fixedIndex map[string]*sideIndex

func (f fixedIndex) index(pkg string) *sideIndex {
	if idx := f[pkg]; idx != nil {
		return idx
	}
	return newSideIndex()
}

func TestCompareRules(t *testing.T) {
	bundle := func(name string, mod func(*api.Bundle)) *api.Bundle {
		b := &api.Bundle{CsvName: name, PackageName: "p", ChannelName: "c", Version: "1.0.0",
			CsvJson:    `{"kind":"ClusterServiceVersion","metadata":{"name":"` + name + `"}}`,
			Object:     []string{`{"kind":"ClusterServiceVersion","metadata":{"name":"` + name + `"}}`},
			Properties: []*api.Property{{Type: "olm.package", Value: `{"packageName":"p","version":"1.0.0"}`}}}
		if mod != nil {
			mod(b)
		}
		return b
	}
	ans := func(b *api.Bundle) answer { return answer{bundle: b} }
	notFound := answer{err: errors.New("not found")}
	g := manifest.GVK{Group: "g", Version: "v1", Kind: "K"}

	tests := []struct {
		name        string
		left, right input.Kind
		c           call
		a           [2]answer
		want        []string // rules, in order
	}{
		{
			name: "encodings are not differences",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c: call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a: [2]answer{
				ans(bundle("b2", func(b *api.Bundle) {
					b.CsvJson = "{\"metadata\":{\"name\":\"b2\"},\"kind\":\"ClusterServiceVersion\"}\n"
					b.Properties[0].Value = `{"version":"1.0.0","packageName":"p"}`
				})),
				ans(bundle("b2", nil)),
			},
			want: nil,
		},
		{
			name: "replacement choice among the same candidates is the same answer",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetBundleThatReplaces, pkg: "p", channel: "c", name: "b1"},
			a:    [2]answer{ans(bundle("b2", nil)), ans(bundle("b3", nil))},
			want: nil,
		},
		{
			name: "replacement that is no candidate",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetBundleThatReplaces, pkg: "p", channel: "c", name: "b2"},
			a:    [2]answer{ans(bundle("b2", nil)), ans(bundle("b3", nil))},
			want: []string{RuleEdgeMissing.Name},
		},
		{
			name: "nearest provider below a head",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetDefaultBundleThatProvides, gvk: manifest.GVK{Group: "other", Version: "v1", Kind: "K"}},
			a:    [2]answer{ans(bundle("b1", nil)), notFound},
			want: []string{RuleLatestProviderHeadVsNearest.Name},
		},
		{
			name: "the head provider missing",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetDefaultBundleThatProvides, gvk: g},
			a:    [2]answer{ans(bundle("b2", nil)), notFound},
			want: []string{RuleProviderDiffers.Name},
		},
		{
			name: "list bundles strip manifests differently",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c: call{rpc: RPCListBundles},
			a: [2]answer{
				{bundles: []*api.Bundle{bundle("b2", nil)}},
				{bundles: []*api.Bundle{bundle("b2", func(b *api.Bundle) { b.CsvJson, b.Object = "", nil })}},
			},
			want: []string{RuleListBundlesManifests.Name, RuleListBundlesManifests.Name},
		},
		{
			name: "get bundle manifests missing",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a:    [2]answer{ans(bundle("b2", nil)), ans(bundle("b2", func(b *api.Bundle) { b.CsvJson, b.Object = "", nil }))},
			want: []string{RuleManifestsDiffer.Name, RuleManifestsDiffer.Name},
		},
		{
			name: "edges split differently in list bundles",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c: call{rpc: RPCListBundles},
			a: [2]answer{
				{bundles: []*api.Bundle{bundle("b2", func(b *api.Bundle) { b.Skips = []string{"b1"} })}},
				{bundles: []*api.Bundle{bundle("b2", func(b *api.Bundle) { b.Replaces = "b1" })}},
			},
			want: []string{RuleListBundlesEdgeKind.Name},
		},
		{
			name: "olm.package synthesized on the declarative config side",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a:    [2]answer{ans(bundle("b2", func(b *api.Bundle) { b.Properties = nil })), ans(bundle("b2", nil))},
			want: []string{RulePackagePropertySynthesized.Name},
		},
		{
			name: "olm.package lost by the declarative config side",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a:    [2]answer{ans(bundle("b2", nil)), ans(bundle("b2", func(b *api.Bundle) { b.Properties = nil }))},
			want: []string{RulePropertyMissing.Name},
		},
		{
			name: "olm.deprecated served as deprecation",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c: call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a: [2]answer{
				ans(bundle("b2", func(b *api.Bundle) {
					b.Properties = append(b.Properties, &api.Property{Type: "olm.deprecated", Value: "{}"})
				})),
				ans(bundle("b2", func(b *api.Bundle) { b.Deprecation = &api.Deprecation{Message: "old"} })),
			},
			want: []string{RuleDeprecatedPropertyAsDeprecation.Name, RuleDeprecationFBCOnly.Name},
		},
		{
			name: "deprecation lost by the declarative config side",
			left: input.KindDeclcfg, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a:    [2]answer{ans(bundle("b2", func(b *api.Bundle) { b.Deprecation = &api.Deprecation{Message: "old"} })), ans(bundle("b2", nil))},
			want: []string{RuleFieldDiffers.Name},
		},
		{
			name: "provider rows from skip edges",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c: call{rpc: RPCGetChannelEntriesThatProvide, gvk: g},
			a: [2]answer{
				{entries: []*api.ChannelEntry{{PackageName: "p", ChannelName: "c", BundleName: "b2", Replaces: "b1"}, {PackageName: "p", ChannelName: "c", BundleName: "b2"}}},
				{entries: []*api.ChannelEntry{{PackageName: "p", ChannelName: "c", BundleName: "b2", Replaces: "b1"}}},
			},
			want: []string{RuleProvideEntrySkipEdges.Name},
		},
		{
			name: "the same provider rows differ between two sqlite servers",
			left: input.KindSQLite, right: input.KindSQLite,
			c: call{rpc: RPCGetChannelEntriesThatProvide, gvk: g},
			a: [2]answer{
				{entries: []*api.ChannelEntry{{PackageName: "p", ChannelName: "c", BundleName: "b2", Replaces: "b1"}, {PackageName: "p", ChannelName: "c", BundleName: "b2"}}},
				{entries: []*api.ChannelEntry{{PackageName: "p", ChannelName: "c", BundleName: "b2", Replaces: "b1"}}},
			},
			want: []string{RuleEntryMissing.Name},
		},
		{
			name: "plural only on the sqlite side",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c: call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a: [2]answer{
				ans(bundle("b2", func(b *api.Bundle) {
					b.ProvidedApis = []*api.GroupVersionKind{{Group: "g", Version: "v1", Kind: "K", Plural: "ks"}}
				})),
				ans(bundle("b2", func(b *api.Bundle) { b.ProvidedApis = []*api.GroupVersionKind{{Group: "g", Version: "v1", Kind: "K"}} })),
			},
			want: []string{RulePluralSQLiteOnly.Name},
		},
		{
			name: "plural only on the declarative config side",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c: call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a: [2]answer{
				ans(bundle("b2", func(b *api.Bundle) { b.ProvidedApis = []*api.GroupVersionKind{{Group: "g", Version: "v1", Kind: "K"}} })),
				ans(bundle("b2", func(b *api.Bundle) {
					b.ProvidedApis = []*api.GroupVersionKind{{Group: "g", Version: "v1", Kind: "K", Plural: "ks"}}
				})),
			},
			want: []string{RuleFieldDiffers.Name},
		},
		{
			name: "the sqlite backend on the right (a live server named sqlite)",
			left: input.KindDeclcfg, right: input.KindSQLite,
			c: call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"},
			a: [2]answer{
				ans(bundle("b2", func(b *api.Bundle) { b.ProvidedApis = []*api.GroupVersionKind{{Group: "g", Version: "v1", Kind: "K"}} })),
				ans(bundle("b2", func(b *api.Bundle) {
					b.ProvidedApis = []*api.GroupVersionKind{{Group: "g", Version: "v1", Kind: "K", Plural: "ks"}}
				})),
			},
			want: []string{RulePluralSQLiteOnly.Name},
		},
		{
			name: "error versus answer on a probe",
			left: input.KindSQLite, right: input.KindDeclcfg,
			c:    call{rpc: RPCGetBundle, pkg: probePackage, channel: probeChannel, name: probeBundle, probe: true},
			a:    [2]answer{notFound, ans(bundle(probeBundle, nil))},
			want: []string{RuleErrorVsAnswer.Name},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range compare(testCatalog(tt.left, tt.right), tt.c, tt.a) {
				got = append(got, d.Rule)
				assert.Equal(t, tt.c.rpc, d.RPC)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// Fields a newer live server sends that this client does not know must
// match too; only a live server's answers can carry them.
func TestUnknownFieldsOfALiveServer(t *testing.T) {
	withUnknown := func() *api.Bundle {
		b := &api.Bundle{CsvName: "b2", PackageName: "p", ChannelName: "c"}
		// Field 99, varint 1: no field of api.Bundle.
		b.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1))
		return b
	}
	c := call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"}
	a := [2]answer{{bundle: &api.Bundle{CsvName: "b2", PackageName: "p", ChannelName: "c"}}, {bundle: withUnknown()}}
	cat := testCatalog(input.KindDeclcfg, input.KindDeclcfg)
	cat.remote = [2]bool{false, true}
	diffs := compare(cat, c, a)
	if assert.Len(t, diffs, 1) {
		assert.Equal(t, RuleFieldDiffers.Name, diffs[0].Rule)
		assert.Equal(t, ".", diffs[0].Path)
	}
}

// API lists compare as sets of GVKs: what one side lacks is reported in
// the order of the GVKs' names (the left side's first), a GVK listed
// twice counts once with its last plural, and the plurals that differ
// are reported together, last.
func TestAPIsDiffs(t *testing.T) {
	gvk := func(group, kind, plural string) *api.GroupVersionKind {
		return &api.GroupVersionKind{Group: group, Version: "v1", Kind: kind, Plural: plural}
	}
	c := call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"}
	a := [2]answer{
		{bundle: &api.Bundle{CsvName: "b2", PackageName: "p", ChannelName: "c", ProvidedApis: []*api.GroupVersionKind{
			gvk("z", "Z", "first"), gvk("m", "M", ""), gvk("g", "K", "ks"), gvk("a", "A", ""), gvk("a.b", "A", ""), gvk("z", "Z", "zs"), gvk("y", "Y", "ys"),
		}}},
		{bundle: &api.Bundle{CsvName: "b2", PackageName: "p", ChannelName: "c", ProvidedApis: []*api.GroupVersionKind{
			gvk("y", "Y", "other"), gvk("b", "B", ""), gvk("z", "Z", "zs"), gvk("g", "K", ""),
		}}},
	}
	var got []Diff
	for _, d := range compare(testCatalog(input.KindSQLite, input.KindDeclcfg), c, a) {
		got = append(got, Diff{Path: d.Path, Left: d.Left, Right: d.Right, Rule: d.Rule})
	}
	want := []Diff{
		// "a.b/v1/A" sorts before "a/v1/A": '.' is below '/'.
		{Path: ".providedApis[a.b/v1/A]", Left: "a.b/v1/A", Right: "absent", Rule: RuleAPIMissing.Name},
		{Path: ".providedApis[a/v1/A]", Left: "a/v1/A", Right: "absent", Rule: RuleAPIMissing.Name},
		{Path: ".providedApis[m/v1/M]", Left: "m/v1/M", Right: "absent", Rule: RuleAPIMissing.Name},
		{Path: ".providedApis[b/v1/B]", Left: "absent", Right: "b/v1/B", Rule: RuleAPIMissing.Name},
		// Both plurals filled on y: a real difference, which makes the
		// whole report one.
		{Path: ".providedApis[*].plural", Left: "[g/v1/K=ks, y/v1/Y=ys]", Right: "[g/v1/K=, y/v1/Y=other]", Rule: RuleFieldDiffers.Name},
	}
	assert.Empty(t, cmp.Diff(want, got), "differences (-want +got)")
}

// compareGVKStrings orders GVKs exactly as their strings compare.
func TestCompareGVKStrings(t *testing.T) {
	parts := []string{"", "a", "a.b", "a/b", "ab", "b", "/", "a/", "/a", "v1", "v1beta1"}
	var gvks []manifest.GVK
	for _, g := range parts {
		for _, v := range parts {
			for _, k := range []string{"", "K", "a", "/K"} {
				gvks = append(gvks, manifest.GVK{Group: g, Version: v, Kind: k})
			}
		}
	}
	for _, a := range gvks {
		for _, b := range gvks {
			if got, want := compareGVKStrings(a, b), strings.Compare(a.String(), b.String()); got != want {
				require.Equal(t, want, got, "compareGVKStrings(%q, %q)", a.String(), b.String())
			}
		}
	}
}

// BenchmarkCompareAPIs is the API list comparison of one bundle answer
// of a sqlite server against a declarative config one: the same GVKs in
// another order, plurals on the sqlite side only. It is what justifies
// compareGVKStrings (against sorting by GVK.String keys).
func BenchmarkCompareAPIs(b *testing.B) {
	var l, r []*api.GroupVersionKind
	for _, k := range []string{"Cluster", "Backup", "Restore", "Monitor"} {
		l = append(l, &api.GroupVersionKind{Group: "db.example.com", Version: "v1", Kind: k, Plural: strings.ToLower(k) + "s"})
		r = append([]*api.GroupVersionKind{{Group: "db.example.com", Version: "v1", Kind: k}}, r...)
	}
	d := &differ{c: call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"}, cat: testCatalog(input.KindSQLite, input.KindDeclcfg)}
	for b.Loop() {
		d.out = d.out[:0]
		d.apis(".providedApis", l, r)
	}
}

func TestTypedSet(t *testing.T) {
	c := &canonCache{}
	props := []*api.Property{
		{Type: "olm.gvk", Value: `{"group":"g","kind":"K","version":"v1"}`},
		{Type: "olm.package", Value: `{"packageName":"p","version":"1.0.0"}`},
		{Type: "olm.gvk", Value: `{"version":"v1","kind":"K","group":"g"}`}, // the first, reordered
		{Type: "olm.gvk", Value: `{"group":"a","kind":"A","version":"v1"}`},
	}
	set := newTypedSet(c, props)
	require.Len(t, set, 3, "the two spellings of one value are one member")
	assert.True(t, slices.IsSortedFunc(set, compareTyped))
	assert.True(t, set.has(typed{"olm.gvk", c.value(`{"group":"a","kind":"A","version":"v1"}`)}))
	assert.False(t, set.has(typed{"olm.gvk", c.value(`{"group":"b","kind":"A","version":"v1"}`)}))
	assert.True(t, set.hasType("olm.package"))
	assert.True(t, set.hasType("olm.gvk"))
	assert.False(t, set.hasType("olm"))
	assert.False(t, set.hasType("olm.gvk.required"))
	assert.False(t, typedSet(nil).hasType("olm.gvk"))

	other := newTypedSet(c, []*api.Property{
		{Type: "olm.gvk", Value: `{"group":"g","kind":"K","version":"v1"}`},
		{Type: "olm.label", Value: `{"label":"x"}`},
	})
	assert.Equal(t, []typed{set[0], set[2]}, set.only(other))
	assert.Equal(t, []typed{other[1]}, other.only(set))
	assert.Empty(t, set.only(set))
	assert.Equal(t, []typed(set), set.only(nil))
}

// BenchmarkComparePropsAndDeps is the property and dependency comparison
// of one bundle answer of a sqlite server against a declarative config
// one: the same values in another order and spelling, the required API
// a dependency on one side and a property on the other.
func BenchmarkComparePropsAndDeps(b *testing.B) {
	gvk := func(kind string) string { return `{"group":"db.example.com","kind":"` + kind + `","version":"v1"}` }
	l := &api.Bundle{
		Properties: []*api.Property{{Type: "olm.gvk", Value: gvk("Cluster")}, {Type: "olm.gvk", Value: gvk("Backup")},
			{Type: "olm.package", Value: `{"packageName":"db","version":"1.2.3"}`}, {Type: "olm.gvk", Value: gvk("Restore")}},
		Dependencies: []*api.Dependency{{Type: "olm.gvk", Value: gvk("Secret")}},
	}
	r := &api.Bundle{
		Properties: []*api.Property{{Type: "olm.package", Value: `{"version":"1.2.3","packageName":"db"}`}, {Type: "olm.gvk", Value: gvk("Restore")},
			{Type: "olm.gvk", Value: gvk("Cluster")}, {Type: "olm.gvk", Value: gvk("Backup")}, {Type: "olm.gvk.required", Value: gvk("Secret")}},
		Dependencies: []*api.Dependency{{Type: "olm.gvk", Value: gvk("Secret")}},
	}
	d := &differ{c: call{rpc: RPCGetBundle, pkg: "p", channel: "c", name: "b2"}, cat: testCatalog(input.KindSQLite, input.KindDeclcfg)}
	for b.Loop() {
		d.out = d.out[:0]
		d.propsAndDeps("", l, r)
	}
}

package migrate

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/legacy"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

const fooCSV = `{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"annotations":{"olm.skipRange":"<0.3.1"},"name":"foo.v0.3.1"},` +
	`"spec":{"description":"Foo <b>operator</b>","displayName":"Foo","icon":[{"base64data":"aGVs bG8=","mediatype":"image/png"}],` +
	`"install":{"spec":{"deployments":[{"name":"foo","spec":{"template":{"spec":{"containers":[{"name":"operator","image":"test.registry/foo:v0.3.1"},{"name":"sidecar","image":"test.registry/side:v1"}]}}}}]}},` +
	`"relatedImages":[{"name":"op","image":"test.registry/foo:v0.3.1"}],"version":"0.3.1"}}`

const fooCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"foos.test.foo"}}`

// fooPackage is a hand-built package: a head with manifests, a skipped
// bundle without manifests (cleared non-head), a deprecated bundle.
func fooPackage() *legacy.PackageData {
	return &legacy.PackageData{
		Package:  legacy.Package{Name: "foo", DefaultChannel: "beta"},
		Channels: []legacy.Channel{{Name: "beta", Package: "foo", Head: "foo.v0.3.1"}},
		Entries: entries("foo",
			[5]any{8, "beta", "foo.v0.3.1", 11, 0},
			[5]any{9, "beta", "foo.v0.3.0", 0, 1},
			[5]any{10, "beta", "foo.v0.3.1", 9, 1},
			[5]any{11, "beta", "foo.v0.2.0", 0, 2},
		),
		Bundles: []legacy.Bundle{
			{Name: "foo.v0.2.0", BundlePath: "127.0.0.1:5000/test/foo-bundle:v0.2.0", Version: "0.2.0", SkipRange: "<0.2.0",
				Properties: []legacy.Property{{Type: "olm.package", Value: `{"packageName":"foo","version":"0.2.0"}`}, {Type: "olm.deprecated", Value: `{}`}},
				Deprecated: true},
			{Name: "foo.v0.3.0", BundlePath: "127.0.0.1:5000/test/foo-bundle:v0.3.0", Version: "0.3.0",
				Properties:    []legacy.Property{{Type: "olm.gvk", Value: `{"group":"test.foo","kind":"Foo","version":"v1"}`}},
				RelatedImages: []string{"test.registry/foo:v0.3.0", "127.0.0.1:5000/test/foo-bundle:v0.3.0"}},
			{Name: "foo.v0.3.1", BundlePath: "127.0.0.1:5000/test/foo-bundle:v0.3.1", Version: "0.3.1",
				CSV:     []byte(fooCSV),
				Objects: [][]byte{[]byte(fooCSV), []byte(fooCRD)},
				Properties: []legacy.Property{
					{Type: "olm.package", Value: `{"packageName":"foo","version":"0.3.1"}`},
					{Type: "olm.gvk", Value: `{"group":"test.foo","kind":"Foo","version":"v2"}`},
					{Type: "olm.package", Value: `{ "packageName": "foo", "version": "0.3.1" }`},
					{Type: "other", Value: `{"a": "\u003cx>"}`},
				},
				Dependencies: []legacy.Dependency{
					{Type: "olm.package", Value: `{"packageName":"bar","version":"\u003c0.2.0"}`},
					{Type: "olm.gvk", Value: `{"group":"test.bar","kind":"Bar","version":"v1alpha1"}`},
					{Type: "olm.label", Value: `{"label":"certified"}`},
					{Type: "olm.constraint", Value: `{"failureMessage":"needs <x>","cel":{"rule":"true"}}`},
				},
				ProvidedAPIs:  []legacy.API{{GVK: manifest.GVK{Group: "test.foo", Version: "v2", Kind: "Foo"}, Plural: "foos"}, {GVK: manifest.GVK{Group: "test.foo", Version: "v1", Kind: "Foo"}, Plural: "foos"}},
				RelatedImages: []string{"127.0.0.1:5000/test/foo-bundle:v0.3.1", "test.registry/foo:v0.3.1", "test.registry/side:v1"}},
		},
		Stranded: []legacy.Bundle{{Name: "foo.v9.9.9", Version: "9.9.9"}},
		Repairs:  []legacy.Repair{{Kind: legacy.RepairDuplicateRows, Table: "properties", Package: "foo", Detail: "x"}},
	}
}

func mustOpts(t *testing.T, opts ...Option) *options {
	t.Helper()
	o, err := newOptions(opts)
	require.NoError(t, err)
	return o
}

func propsOf(b declcfg.Bundle) []string {
	var out []string
	for _, p := range b.Properties {
		if p.Type == declcfg.PropertyBundleObject {
			out = append(out, p.Type)
			continue
		}
		out = append(out, p.Type+" "+string(p.Value))
	}
	return out
}

func TestConvertPackageDefault(t *testing.T) {
	res := convertPackage(fooPackage(), mustOpts(t), false)
	require.Empty(t, res.problems)
	cfg := res.cfg

	require.Len(t, cfg.Packages, 1)
	p := cfg.Packages[0]
	assert.Equal(t, "beta", p.DefaultChannel)
	assert.Equal(t, "Foo <b>operator</b>", p.Description)
	require.NotNil(t, p.Icon, "icon decodes after removing spaces")
	assert.Equal(t, "hello", string(p.Icon.Data))
	assert.Equal(t, "image/png", p.Icon.MediaType)

	require.Len(t, cfg.Channels, 1)
	assert.Equal(t, []declcfg.ChannelEntry{
		{Name: "foo.v0.3.0"},
		{Name: "foo.v0.3.1", Replaces: "foo.v0.2.0", Skips: []string{"foo.v0.3.0"}},
	}, cfg.Channels[0].Entries)

	require.Len(t, cfg.Bundles, 2)
	b := cfg.Bundles[1]
	assert.Equal(t, "foo.v0.3.1", b.Name)
	assert.Equal(t, []string{
		`olm.constraint {"failureMessage":"needs <x>","cel":{"rule":"true"}}`,
		`olm.gvk {"group":"test.foo","kind":"Foo","version":"v1"}`,
		`olm.gvk {"group":"test.foo","kind":"Foo","version":"v2"}`,
		`olm.gvk.required {"group":"test.bar","kind":"Bar","version":"v1alpha1"}`,
		`olm.label.required {"label":"certified"}`,
		`olm.package {"packageName":"foo","version":"0.3.1"}`,
		`olm.package.required {"packageName":"bar","versionRange":"<0.2.0"}`,
		`other {"a":"\u003cx>"}`,
		"olm.bundle.object", "olm.bundle.object",
	}, propsOf(b))
	// Objects sorted by their base64 value, data as stored.
	var first declcfg.BundleObjectValue
	require.NoError(t, json.Unmarshal(b.Properties[8].Value, &first))
	assert.Equal(t, fooCRD, string(first.Data))
	assert.Equal(t, []declcfg.RelatedImage{
		{Name: "", Image: "127.0.0.1:5000/test/foo-bundle:v0.3.1"},
		{Name: "op", Image: "test.registry/foo:v0.3.1"},
		{Name: "sidecar", Image: "test.registry/side:v1"},
	}, b.RelatedImages)

	// No CSV: rows keep an empty name; synthesized olm.package.
	b0 := cfg.Bundles[0]
	assert.Equal(t, []string{
		`olm.gvk {"group":"test.foo","kind":"Foo","version":"v1"}`,
		`olm.package {"packageName":"foo","version":"0.3.0"}`,
	}, propsOf(b0))
	assert.Equal(t, []declcfg.RelatedImage{
		{Name: "", Image: "127.0.0.1:5000/test/foo-bundle:v0.3.0"},
		{Name: "", Image: "test.registry/foo:v0.3.0"},
	}, b0.RelatedImages)

	assert.Empty(t, cfg.Deprecations)
	assert.Equal(t, 2, res.counts.Objects)
	kinds := map[Kind][]string{}
	for _, f := range append(res.drops, res.notes...) {
		kinds[f.Kind] = append(kinds[f.Kind], f.Bundle)
	}
	assert.Equal(t, map[Kind][]string{
		DropStranded:     {"foo.v9.9.9"},
		DropDeprecated:   {"foo.v0.2.0"},
		NoteDanglingEdge: {"foo.v0.3.1"},
	}, kinds)
	assert.Len(t, res.repairs, 1)
}

func TestConvertPackageKeepDeprecated(t *testing.T) {
	res := convertPackage(fooPackage(), mustOpts(t, WithKeepDeprecated(true)), false)
	require.Empty(t, res.problems)
	require.Len(t, res.cfg.Bundles, 3)
	assert.Equal(t, "foo.v0.2.0", res.cfg.Bundles[0].Name)
	assert.Contains(t, propsOf(res.cfg.Bundles[0]), `olm.deprecated {}`)
	assert.Equal(t, []declcfg.ChannelEntry{
		{Name: "foo.v0.2.0", SkipRange: "<0.2.0"},
		{Name: "foo.v0.3.0"},
		{Name: "foo.v0.3.1", Replaces: "foo.v0.2.0", Skips: []string{"foo.v0.3.0"}},
	}, res.cfg.Channels[0].Entries)
	assert.Equal(t, []declcfg.Deprecation{{
		Schema: "olm.deprecations", Package: "foo",
		Entries: []declcfg.DeprecationEntry{{
			Reference: declcfg.PackageScopedReference{Schema: "olm.bundle", Name: "foo.v0.2.0"},
			Message:   "bundle foo.v0.2.0 was deprecated in the legacy index",
		}},
	}}, res.cfg.Deprecations)
}

func TestConvertPackageCSVMetadata(t *testing.T) {
	res := convertPackage(fooPackage(), mustOpts(t, WithMigrateLevel(MigrateLevelCSVMetadata)), false)
	require.Empty(t, res.problems)
	b := res.cfg.Bundles[1]
	last := b.Properties[len(b.Properties)-1]
	assert.Equal(t, declcfg.PropertyCSVMetadata, last.Type)
	assert.Equal(t, `{"annotations":{"olm.skipRange":"<0.3.1"},"apiServiceDefinitions":{},"crdDescriptions":{},"description":"Foo <b>operator</b>","displayName":"Foo","provider":{}}`, string(last.Value))
	for _, p := range b.Properties {
		assert.NotEqual(t, declcfg.PropertyBundleObject, p.Type)
	}
	assert.Equal(t, 0, res.counts.Objects)
}

func TestConvertPackageProblems(t *testing.T) {
	bad := func() *legacy.PackageData {
		pd := fooPackage()
		pd.Bundles[2].BundlePath = "example.com/strimzi/operator@@sha256:abc"
		pd.Bundles[2].RelatedImages = append(pd.Bundles[2].RelatedImages, "example.com/x/y@@sha256:1")
		pd.Bundles[1].SkipRange = "not a range"
		return pd
	}
	res := convertPackage(bad(), mustOpts(t), false)
	var got []string
	for _, f := range res.problems {
		got = append(got, string(f.Kind)+" "+f.Bundle+" "+f.Field)
		assert.NotEmpty(t, f.Hint)
		assert.Equal(t, "foo", f.Package)
	}
	assert.ElementsMatch(t, []string{
		"invalid-skip-range foo.v0.3.0 skipRange",
		"invalid-image foo.v0.3.1 image",
		"invalid-related-image foo.v0.3.1 relatedImages[1].image",
	}, got)

	// With both resolutions, the invalid bundles and image are dropped,
	// which leaves nothing to head the channel... only foo.v0.3.0 was
	// skipped by v0.3.1, now dropped: v0.3.0 becomes the head alone.
	res = convertPackage(bad(), mustOpts(t, WithDropInvalidBundles(true), WithDropInvalidRelatedImages(true)), false)
	var drops []string
	for _, f := range res.drops {
		drops = append(drops, string(f.Kind)+" "+f.Bundle)
	}
	assert.ElementsMatch(t, []string{
		"stranded-bundle foo.v9.9.9", "deprecated-bundle foo.v0.2.0",
		"dropped-invalid-bundle foo.v0.3.0", "dropped-invalid-bundle foo.v0.3.1",
	}, drops)
	require.Len(t, res.problems, 1)
	assert.Equal(t, ProblemEmptyChannel, res.problems[0].Kind)
}

func TestConvertPackageBadIcon(t *testing.T) {
	pd := fooPackage()
	csv := []byte(`{"kind":"ClusterServiceVersion","spec":{"icon":[{"base64data":"!!!","mediatype":"image/png"}]}}`)
	pd.Bundles[2].CSV = csv
	res := convertPackage(pd, mustOpts(t), false)
	assert.Nil(t, res.cfg.Packages[0].Icon)
	var kinds []Kind
	for _, f := range res.drops {
		kinds = append(kinds, f.Kind)
	}
	assert.Contains(t, kinds, DropIcon)
}

func TestBundleObjectEncoding(t *testing.T) {
	obj := []byte(`{"a":"<b>"}`)
	p := bundleObject(obj)
	assert.Equal(t, `{"data":"`+base64.StdEncoding.EncodeToString(obj)+`"}`, string(p.Value))
}

func TestConvertPackageManifestsWithoutCSV(t *testing.T) {
	pd := fooPackage()
	pd.Bundles[2].Objects = [][]byte{[]byte(fooCRD)}
	res := convertPackage(pd, mustOpts(t), false)
	require.Empty(t, res.problems)
	var notes []string
	for _, f := range res.notes {
		notes = append(notes, string(f.Kind)+" "+f.Bundle)
	}
	assert.Contains(t, notes, "no-csv-in-manifests foo.v0.3.1")

	pd = fooPackage()
	pd.Bundles[2].Objects = [][]byte{[]byte(fooCRD)}
	pd.Bundles[2].BundlePath = ""
	res = convertPackage(pd, mustOpts(t), false)
	require.Len(t, res.problems, 1)
	assert.Equal(t, ProblemInvalidManifest, res.problems[0].Kind)
	assert.Equal(t, "foo.v0.3.1", res.problems[0].Bundle)
}

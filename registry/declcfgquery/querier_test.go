package declcfgquery_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

func load(t *testing.T, dir string, opts ...declcfgquery.Option) *declcfgquery.Querier {
	t.Helper()
	q, err := declcfgquery.Load(context.Background(), dir, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { q.Close() })
	return q
}

func listBundles(t *testing.T, q *declcfgquery.Querier) []*api.Bundle {
	t.Helper()
	return declcfgquery.CollectBundles(t, q)
}

// testdata/deprecations: package cool, channels stable (1.0.0 <- 1.1.0)
// and candidate (1.0.0 <- 1.1.0 <- 1.2.0, which also skips 1.0.0);
// 1.1.0 is inline (no image); deprecations on the package, the candidate
// channel and bundle 1.0.0.
func TestDeprecationsAndFields(t *testing.T) {
	ctx := context.Background()
	q := load(t, "testdata/deprecations")

	p, err := q.GetPackage(ctx, "cool")
	require.NoError(t, err)
	require.True(t, proto.Equal(&api.Package{
		Name:               "cool",
		DefaultChannelName: "stable",
		Deprecation:        &api.Deprecation{Message: "cool is deprecated, use hot."},
		Channels: []*api.Channel{
			{Name: "candidate", CsvName: "cool.v1.2.0", Deprecation: &api.Deprecation{Message: "candidate is gone."}},
			{Name: "stable", CsvName: "cool.v1.1.0"},
		},
	}, p), "got %v", p)

	b, err := q.GetBundle(ctx, "cool", "stable", "cool.v1.0.0")
	require.NoError(t, err)
	require.Equal(t, "cool.v1.0.0 has a CVE.", b.GetDeprecation().GetMessage())

	b, err = q.GetBundle(ctx, "cool", "stable", "cool.v1.1.0")
	require.NoError(t, err)
	require.Nil(t, b.Deprecation)
	require.Equal(t, "1.1.0", b.Version)
	require.Equal(t, ">=0.9.0 <1.1.0", b.SkipRange)
	require.Empty(t, b.Replaces, "GetBundle trims replaces")
	require.Contains(t, b.CsvJson, `"name":"cool.v1.1.0"`)
	require.Equal(t, []string{b.CsvJson}, b.Object)
	// Values are re-encoded compact with sorted keys, no HTML escaping,
	// numbers through float64; olm.bundle.object is not a property.
	var props []string
	for _, p := range b.Properties {
		props = append(props, p.Type+" "+p.Value)
	}
	require.Equal(t, []string{
		`olm.package {"packageName":"cool","version":"1.1.0"}`,
		`olm.gvk {"group":"cool.example.com","kind":"Cool","version":"v1"}`,
		`olm.package.required {"packageName":"other","versionRange":"<2.0.0 >=1.0.0"}`,
		`olm.gvk.required {"group":"other.example.com","kind":"Other","version":"v1"}`,
		`olm.maxOpenShiftVersion 4.15`,
		`custom.note {"a":[3,1.5,{"b":2,"w":1}],"z":"a&b"}`,
	}, props)
	require.Len(t, b.Dependencies, 2)
	require.Equal(t, &api.Dependency{Type: "olm.package", Value: `{"packageName":"other","version":"<2.0.0 >=1.0.0"}`}, stripState(b.Dependencies[0]))
	require.Equal(t, &api.Dependency{Type: "olm.gvk", Value: `{"group":"other.example.com","kind":"Other","version":"v1"}`}, stripState(b.Dependencies[1]))
	require.Len(t, b.ProvidedApis, 1)
	require.Equal(t, "Cool", b.ProvidedApis[0].Kind)
	require.Len(t, b.RequiredApis, 1)
	require.Equal(t, "Other", b.RequiredApis[0].Kind)

	// ListBundles: sorted by (channel, package, bundle), replaces/skips
	// set, manifests only for the inline bundle.
	var names []string
	for _, b := range listBundles(t, q) {
		names = append(names, b.ChannelName+"/"+b.CsvName)
		switch {
		case b.CsvName == "cool.v1.2.0":
			require.Equal(t, "cool.v1.1.0", b.Replaces)
			require.Equal(t, []string{"cool.v1.0.0"}, b.Skips)
			require.Empty(t, b.CsvJson, "image bundles stream without manifests")
			require.Empty(t, b.Object)
		case b.CsvName == "cool.v1.1.0":
			require.NotEmpty(t, b.CsvJson, "inline bundles stream their manifests")
		}
	}
	require.Equal(t, []string{
		"candidate/cool.v1.0.0", "candidate/cool.v1.1.0", "candidate/cool.v1.2.0",
		"stable/cool.v1.0.0", "stable/cool.v1.1.0",
	}, names)

	// GetBundle keeps manifests even for image bundles.
	b, err = q.GetBundleForChannel(ctx, "cool", "candidate")
	require.NoError(t, err)
	require.Equal(t, "cool.v1.2.0", b.CsvName)
	require.NotEmpty(t, b.CsvJson)
	require.Empty(t, b.Skips)
}

func TestGraphQueries(t *testing.T) {
	ctx := context.Background()
	q := load(t, "testdata/deprecations")

	entries, err := q.GetChannelEntriesThatReplace(ctx, "cool.v1.0.0")
	require.NoError(t, err)
	require.Equal(t, []string{
		// 1.1.0 replaces it in both channels; 1.2.0 only skips it, and
		// opm serve reports that entry with 1.2.0's own replaces.
		"candidate cool.v1.1.0 cool.v1.0.0",
		"candidate cool.v1.2.0 cool.v1.1.0",
		"stable cool.v1.1.0 cool.v1.0.0",
	}, entryStrings(entries))

	b, err := q.GetBundleThatReplaces(ctx, "cool.v1.1.0", "cool", "candidate")
	require.NoError(t, err)
	require.Equal(t, "cool.v1.2.0", b.CsvName)
	_, err = q.GetBundleThatReplaces(ctx, "cool.v1.2.0", "cool", "candidate")
	require.EqualError(t, err, `no entry found for package "cool", channel "candidate"`)
	_, err = q.GetBundleThatReplaces(ctx, "x", "nope", "candidate")
	require.EqualError(t, err, `package nope not found`)

	entries, err = q.GetChannelEntriesThatProvide(ctx, "cool.example.com", "v1", "Cool")
	require.NoError(t, err)
	require.Equal(t, []string{
		"candidate cool.v1.0.0 ",
		"candidate cool.v1.1.0 cool.v1.0.0",
		"candidate cool.v1.2.0 cool.v1.1.0",
		"candidate cool.v1.2.0 cool.v1.0.0",
		"stable cool.v1.0.0 ",
		"stable cool.v1.1.0 cool.v1.0.0",
	}, entryStrings(entries))

	entries, err = q.GetLatestChannelEntriesThatProvide(ctx, "cool.example.com", "v1", "Cool")
	require.NoError(t, err)
	require.Equal(t, []string{
		"candidate cool.v1.2.0 cool.v1.1.0",
		"candidate cool.v1.2.0 cool.v1.0.0",
		"stable cool.v1.1.0 cool.v1.0.0",
	}, entryStrings(entries))

	b, err = q.GetBundleThatProvides(ctx, "cool.example.com", "v1", "Cool")
	require.NoError(t, err)
	require.Equal(t, "stable", b.ChannelName, "the default channel's head")
	require.Equal(t, "cool.v1.1.0", b.CsvName)

	_, err = q.GetBundleThatProvides(ctx, "other.example.com", "v1", "Other")
	require.EqualError(t, err, `no channel entries found that provide group:"other.example.com" version:"v1" kind:"Other"`)
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	q := load(t, "testdata/deprecations")
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"GetPackage", func() error { _, err := q.GetPackage(ctx, "x"); return err }, `package "x" not found`},
		{"GetBundle package", func() error { _, err := q.GetBundle(ctx, "x", "c", "b"); return err }, `package "x" not found`},
		{"GetBundle channel", func() error { _, err := q.GetBundle(ctx, "cool", "c", "b"); return err }, `package "cool", channel "c" not found`},
		{"GetBundle bundle", func() error { _, err := q.GetBundle(ctx, "cool", "stable", "b"); return err }, `package "cool", channel "stable", bundle "b" not found`},
		{"GetBundleForChannel", func() error { _, err := q.GetBundleForChannel(ctx, "cool", "c"); return err }, `package "cool", channel "c" not found`},
		{"GetChannelEntriesThatReplace", func() error { _, err := q.GetChannelEntriesThatReplace(ctx, "b"); return err }, `no channel entries found that replace b`},
		{"GetChannelEntriesThatProvide", func() error { _, err := q.GetChannelEntriesThatProvide(ctx, "g", "v", "k"); return err }, `no channel entries found that provide group:"g" version:"v" kind:"k"`},
	} {
		t.Run(tc.name, func(t *testing.T) { require.EqualError(t, tc.call(), tc.want) })
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := q.GetPackage(cctx, "cool")
	require.ErrorIs(t, err, context.Canceled)
}

// TestCSVMetadataSyntheticCSV serves the bundle-object-to-csv-metadata
// migration of community-bundles: bundles have no CSV object, so the CSV
// is synthesized from olm.csv.metadata; it must agree with the real CSV
// (served from the plain migration) on every field the metadata carries.
func TestCSVMetadataSyntheticCSV(t *testing.T) {
	ctx := context.Background()
	meta := load(t, "../../fixtures/legacy/community-bundles/opm-migrate-csvmetadata")
	full := load(t, "../../fixtures/legacy/community-bundles/opm-migrate")
	n := 0
	for _, want := range listBundles(t, full) {
		real, err := full.GetBundle(ctx, want.PackageName, want.ChannelName, want.CsvName)
		require.NoError(t, err)
		got, err := meta.GetBundle(ctx, want.PackageName, want.ChannelName, want.CsvName)
		require.NoError(t, err)
		require.True(t, proto.Equal(&api.Bundle{Properties: real.Properties}, &api.Bundle{Properties: got.Properties}),
			"%s: olm.csv.metadata must not be served as a property", want.CsvName)
		if real.CsvJson == "" {
			continue // non-head bundle without manifests: nothing to compare
		}
		n++
		require.Equal(t, []string{got.CsvJson}, got.Object, want.CsvName)
		var r, s map[string]any
		require.NoError(t, json.Unmarshal([]byte(real.CsvJson), &r))
		require.NoError(t, json.Unmarshal([]byte(got.CsvJson), &s))
		require.Equal(t, "ClusterServiceVersion", s["kind"])
		require.Equal(t, want.CsvName, dig(s, "metadata", "name"))
		require.Equal(t, dig(r, "metadata", "annotations"), dig(s, "metadata", "annotations"), want.CsvName)
		require.Equal(t, dig(r, "spec", "displayName"), dig(s, "spec", "displayName"), want.CsvName)
		require.Equal(t, dig(r, "spec", "keywords"), dig(s, "spec", "keywords"), want.CsvName)
		require.Equal(t, dig(r, "spec", "installModes"), dig(s, "spec", "installModes"), want.CsvName)
		require.Equal(t, "deployment", dig(s, "spec", "install", "strategy"))
		require.Equal(t, got.Version, dig(s, "spec", "version"))
		if d := dig(r, "spec", "description"); d != nil && d != "" {
			require.Equal(t, d, dig(s, "spec", "description"), want.CsvName)
		}
	}
	require.Positive(t, n)
}

func dig(m map[string]any, path ...string) any {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = mm[p]
	}
	return cur
}

func entryStrings(es []*api.ChannelEntry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ChannelName+" "+e.BundleName+" "+e.Replaces)
	}
	return out
}

func stripState(d *api.Dependency) *api.Dependency {
	return &api.Dependency{Type: d.Type, Value: d.Value}
}

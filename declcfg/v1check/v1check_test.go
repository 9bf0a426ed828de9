package v1check

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// checkDir checks every package of the catalog testdata/<name>.
func checkDir(t *testing.T, name string, opts ...Option) []*Report {
	t.Helper()
	var out []*Report
	err := declcfg.EachPackage(context.Background(), "testdata/"+name, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		out = append(out, Check(context.Background(), name, pkg, cfg, opts...))
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, out)
	return out
}

// finding is the report's first finding of rule (nil: none).
func finding(r *Report, rule Rule) *Finding {
	for i := range r.Findings {
		if r.Findings[i].Rule == rule {
			return &r.Findings[i]
		}
	}
	return nil
}

// TestRules: one small catalog per rule, each giving the rule's finding
// with operator-controller's message and the package's status.
func TestRules(t *testing.T) {
	for _, tc := range []struct {
		dir      string
		rule     Rule
		status   Status
		message  string
		detail   string
		severity Severity
	}{
		{dir: "dependency", rule: RuleDependency, status: StatusBlocked, severity: SeverityBlocker,
			message: `validating bundle "dep.v1.0.0": bundle "dep.v1.0.0" has a dependency declared via property "olm.gvk.required" which is currently not supported`},
		{dir: "installmode-own", rule: RuleInstallMode, status: StatusBlocked, severity: SeverityBlocker,
			message: "unsupported bundle: bundle does not support AllNamespaces install mode", detail: "SingleOwnNamespaceInstallSupport"},
		{dir: "installmode-multi", rule: RuleInstallMode, status: StatusBlocked, severity: SeverityBlocker,
			message: "unsupported bundle: bundle does not support AllNamespaces install mode", detail: "supports only MultiNamespace: refused whatever the feature gates"},
		{dir: "apiservice", rule: RuleAPIService, status: StatusBlocked, severity: SeverityBlocker,
			message: "unsupported bundle: apiServiceDefintions are not supported", detail: "v1.g.example.com"},
		{dir: "webhook", rule: RuleWebhook, status: StatusInstallable, severity: SeverityNote,
			message: "cert-manager must run on the cluster", detail: "vhook.example.com (ValidatingAdmissionWebhook)"},
		{dir: "conversion-webhook", rule: RuleConversionWebhook, status: StatusBlocked, severity: SeverityBlocker,
			message: "conversion webhooks need AllNamespaces", detail: "OwnNamespace, AllNamespaces"},
		{dir: "media-type", rule: RuleMediaType, status: StatusBlocked, severity: SeverityBlocker, message: `"plain+v0"`},
		{dir: "needs-csv", rule: RuleNeedsCSV, status: StatusUnknown, severity: SeverityUnknown,
			message: "unknown: needs the CSV (install modes, APIServices, webhooks)", detail: "no olm.bundle.object"},
		{dir: "csv-metadata-only", rule: RuleNeedsCSV, status: StatusInstallable, severity: SeverityNote,
			message: "unknown: needs the CSV (webhooks)", detail: "only olm.csv.metadata"},
		{dir: "no-bundles", rule: RuleNoBundles, status: StatusBlocked, severity: SeverityBlocker, message: `no bundles found for package "empty"`},
		{dir: "invalid-version", rule: RuleInvalidVersion, status: StatusBlocked, severity: SeverityBlocker, message: `version "one"`},
		{dir: "deprecations", rule: RuleSeveralDeprecations, status: StatusInstallable, severity: SeverityNote, message: "2 olm.deprecations blobs"},
		{dir: "edges", rule: RuleDroppedEdge, status: StatusInstallable, severity: SeverityNote, message: "OLM v1's upgrades stop at edges.v2.0.0"},
		{dir: "differs", rule: RulePickDiffers, status: StatusInstallable, severity: SeverityNote, message: "OLM v1 installs differs.v2.0.0, OLM v0 the head of channel stable, differs.v1.0.0"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			reps := checkDir(t, tc.dir)
			require.Len(t, reps, 1)
			r := reps[0]
			assert.Equal(t, tc.status, r.Status())
			f := finding(r, tc.rule)
			require.NotNil(t, f, "findings: %+v", r.Findings)
			assert.Equal(t, tc.severity, f.Severity)
			assert.Contains(t, f.Message, tc.message)
			assert.Contains(t, f.Detail, tc.detail)
			assert.NotEmpty(t, Info(tc.rule).Source)
		})
	}
}

// TestPicks: the bundle operator-controller picks against OLM v0's.
func TestPicks(t *testing.T) {
	for _, tc := range []struct {
		dir, v1, v1Version, v0 string
		why                    string // in the pick-differs detail ("": the picks agree)
	}{
		// picks.v3.0.0 is deprecated (last), picks.noversion has no
		// olm.package (below valid ones), releases order 1.0.0+2 first.
		{dir: "picks", v1: "picks.v1.0.0-r2", v1Version: "1.0.0+2", v0: "picks.v3.0.0", why: "picks.v3.0.0 is deprecated and ranks last"},
		{dir: "release", v1: "release.a", v1Version: "1.0.0+2", v0: "release.b", why: "release.a has version 1.0.0+2, above 1.0.0+1"},
		{dir: "nochannel", v1: "nochannel.v2.0.0", v1Version: "2.0.0", v0: "nochannel.v1.1.0", why: "nochannel.v2.0.0 is in no channel"},
		{dir: "differs", v1: "differs.v2.0.0", v1Version: "2.0.0", v0: "differs.v1.0.0", why: "not in the default channel stable (it is in fast)"},
		{dir: "dependency", v1: "dep.v1.0.0", v1Version: "1.0.0", v0: "dep.v1.0.0"},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			r := checkDir(t, tc.dir)[0]
			require.NotNil(t, r.V1Pick)
			require.NotNil(t, r.V0Pick)
			assert.Equal(t, tc.v1, r.V1Pick.Bundle)
			assert.Equal(t, tc.v1Version, r.V1Pick.Version)
			assert.Equal(t, tc.v0, r.V0Pick.Bundle)
			f := finding(r, RulePickDiffers)
			if tc.why == "" {
				assert.Nil(t, f)
				return
			}
			require.NotNil(t, f)
			assert.Contains(t, f.Detail, tc.why)
		})
	}
}

// TestVersionRelease: build metadata is the release when it is a valid
// one; a release ranks above none.
func TestVersionRelease(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"1.0.0", "1.0.0+1", -1},
		{"1.0.0+2", "1.0.0+10", -1},
		{"1.0.0+a", "1.0.0+1", 1},
		{"1.0.0+1.1", "1.0.0+1", 1},
		{"1.0.0+01", "1.0.0", 0},                    // leading zero: no release
		{"1.0.0+123456789012345678901", "1.0.0", 0}, // too long: no release
		{"2.0.0", "1.0.0+9", 1},
	} {
		t.Run(tc.a+" vs "+tc.b, func(t *testing.T) {
			va, err := bundleVersion(&declcfg.Bundle{Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "p", Version: tc.a})}})
			require.NoError(t, err)
			vb, err := bundleVersion(&declcfg.Bundle{Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "p", Version: tc.b})}})
			require.NoError(t, err)
			assert.Equal(t, tc.want, va.compare(vb))
		})
	}
	_, err := bundleVersion(&declcfg.Bundle{Name: "b"})
	assert.EqualError(t, err, `no package property found in bundle "b"`)
}

// TestUpgradeGaps: a stalled upgrade (the successor has a lower
// version) and one stopping short of the channel head, while an upgrade
// ending at the channel head is no gap.
func TestUpgradeGaps(t *testing.T) {
	r := checkDir(t, "edges")[0]
	require.Len(t, r.UpgradeGaps, 2)
	assert.Equal(t, UpgradeGap{Installed: "edges.v1.0.0", V0Next: []string{"edges.v2.0.0 (stable)"}, V0Heads: []string{"edges.v3.0.0 (stable)"}, Stops: "edges.v2.0.0"}, r.UpgradeGaps[0])
	assert.Equal(t, UpgradeGap{Installed: "edges.v2.0.0", V0Next: []string{"edges.v1.9.0 (stable)"}, V0Heads: []string{"edges.v3.0.0 (stable)"}, Stalled: true, Stops: "edges.v2.0.0"}, r.UpgradeGaps[1])
	assert.Contains(t, r.UpgradeGaps[1].String(), "OLM v1 stays at edges.v2.0.0")
}

// TestDeprecations: only the last olm.deprecations blob counts; entries
// without a message are dropped.
func TestDeprecations(t *testing.T) {
	r := checkDir(t, "deprecations")[0]
	require.NotNil(t, r.Deprecation)
	assert.Equal(t, &Deprecation{Package: "use other-operator", Channels: []ChannelDeprecation{{Channel: "old", Message: "old is closed"}}, Blobs: 2}, r.Deprecation)
	assert.Equal(t, "deprecated: package, channel old", finding(r, RuleDeprecated).Message)
}

// TestAcross: the same package in two catalogs of equal priority blocks
// both; a deprecated candidate loses to a non-deprecated one instead.
func TestAcross(t *testing.T) {
	a, b, dep := checkDir(t, "duplicate-a")[0], checkDir(t, "duplicate-b")[0], checkDir(t, "duplicate-deprecated")[0]
	Across([]*Report{a, dep})
	assert.Equal(t, StatusInstallable, a.Status())
	assert.Equal(t, StatusInstallable, dep.Status())
	Across([]*Report{a, b, dep})
	for _, r := range []*Report{a, b, dep} {
		assert.Equal(t, StatusBlocked, r.Status())
		assert.Equal(t, `found bundles for package "dup" in multiple catalogs with the same priority [duplicate-a duplicate-b]`, finding(r, RuleDuplicatePackage).Message)
	}
	assert.Equal(t, []Rule{RuleDuplicatePackage}, a.Blockers())
	assert.True(t, a.Has(RuleDuplicatePackage, RuleWebhook))
	assert.False(t, a.Has(RuleWebhook))
}

// TestCSVFetcher: a fetched CSV answers what the catalog could not; a
// failed fetch is told with the unknowns.
func TestCSVFetcher(t *testing.T) {
	csv := `{"kind":"ClusterServiceVersion","spec":{"installModes":[{"type":"AllNamespaces","supported":true}],"webhookdefinitions":[{"type":"MutatingAdmissionWebhook","generateName":"m.example.com"}]}}`
	r := checkDir(t, "needs-csv", WithCSVFetcher(func(_ context.Context, b *declcfg.Bundle) (string, error) {
		assert.Equal(t, "example/nocsv.v1.0.0", b.Image)
		return csv, nil
	}))[0]
	assert.Equal(t, StatusInstallable, r.Status())
	assert.Equal(t, "m.example.com (MutatingAdmissionWebhook)", finding(r, RuleWebhook).Detail)

	r = checkDir(t, "needs-csv", WithCSVFetcher(func(context.Context, *declcfg.Bundle) (string, error) {
		return "", errors.New("no such image")
	}))[0]
	assert.Equal(t, StatusUnknown, r.Status())
	assert.Contains(t, finding(r, RuleNeedsCSV).Detail, "fetching the bundle image failed: no such image")
}

// TestRulesDescribed: every rule has a severity, an explanation and a
// source.
func TestRulesDescribed(t *testing.T) {
	for _, i := range Rules() {
		assert.NotEmpty(t, i.Severity, i.Rule)
		assert.NotEmpty(t, i.Why, i.Rule)
		assert.Contains(t, i.Source, "@v1.", i.Rule)
	}
	assert.Equal(t, RuleInfo{}, Info("nope"))
}

// TestParseRules: a list of rule names, blanks ignored; an unknown name
// lists the rules, and a list naming none is refused.
func TestParseRules(t *testing.T) {
	got, err := ParseRules(" dependency, ,install-mode")
	require.NoError(t, err)
	assert.Equal(t, []Rule{RuleDependency, RuleInstallMode}, got)
	got, err = ParseRules("")
	require.NoError(t, err)
	assert.Empty(t, got)
	_, err = ParseRules("dependency,nope")
	assert.EqualError(t, err, `unknown rule "nope" (rules: `+RuleNames()+")")
	assert.Contains(t, RuleNames(), string(RuleUnparsable)+", "+string(RuleDuplicatePackage))
	_, err = ParseRules(" , ")
	assert.EqualError(t, err, "no rule named")
}

package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// TestAddSubstitutesFor: olmcat add refuses a bundle directory whose CSV
// carries olm.substitutesFor without --enable-alpha (exit 1, the catalog
// untouched) and applies it with the flag, as the recorded opm registry
// add --enable-alpha did (fixtures/opmindex/prometheus-substitutes-0.15.0).
func TestAddSubstitutesFor(t *testing.T) {
	cat := filepath.Join(t.TempDir(), "catalog")
	copyTree(t, "../../fixtures/legacy/edge-before-substitutes/opm-migrate", cat)
	sub := filepath.Join(fixtureBundles, "opm-bundles/prometheus.0.15.0.substitutesfor")
	before := snapshotTree(t, cat)
	_, stderr, code := runCLI(t, "add", cat, sub)
	require.Equal(t, exitInvalid, code, stderr)
	require.Contains(t, stderr, "bundle prometheusoperator.0.15.0+1-freshmaker-rebuild: SubstitutesFor is an alpha-only feature")
	require.Equal(t, before, snapshotTree(t, cat), "a refused add writes nothing")

	_, stderr, code = runCLI(t, "add", cat, sub, "--enable-alpha")
	require.Equal(t, 0, code, stderr)
	const (
		v140 = "prometheusoperator.0.14.0"
		v150 = "prometheusoperator.0.15.0"
		sub1 = "prometheusoperator.0.15.0+1-freshmaker-rebuild"
	)
	rebuilt := declcfg.ChannelEntry{Name: sub1, Replaces: v140, Skips: []string{v150}}
	require.Equal(t, map[string][]declcfg.ChannelEntry{
		"preview": {{Name: v140}, {Name: v150}, rebuilt, {Name: "prometheusoperator.0.22.2", Replaces: sub1}},
		"stable":  {{Name: v140}, {Name: v150}, rebuilt},
	}, channelEntries(t, cat, "prometheus"))
}

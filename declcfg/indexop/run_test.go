package indexop

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
)

// twoPackages is chainPackage("stable") and package q: channel stable
// holding q.v1, and q.v0, which no channel holds.
func twoPackages() *declcfg.DeclarativeConfig {
	cfg := chainPackage("stable")
	cfg.Packages = append(cfg.Packages, declcfg.Package{Schema: declcfg.SchemaPackage, Name: "q", DefaultChannel: "stable"})
	cfg.Channels = append(cfg.Channels, declcfg.Channel{Schema: declcfg.SchemaChannel, Name: "stable", Package: "q", Entries: []declcfg.ChannelEntry{{Name: "q.v1"}}})
	for _, v := range []string{"0", "1"} {
		cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{Schema: declcfg.SchemaBundle, Name: "q.v" + v, Package: "q", Image: "img/q:" + v,
			Properties: []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "q", Version: v + ".0.0"})}})
	}
	return cfg
}

// dirSource writes cfg as a catalog directory and is its Source. It
// hands the packages unread names over as nil blobs, as a source reading
// a sqlite index does, so that an Op relying on blobs it declared unread
// fails.
func dirSource(t *testing.T, cfg *declcfg.DeclarativeConfig) Source {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "in")
	require.NoError(t, declcfg.WriteDir(cfg, dir))
	return func(ctx context.Context, unread func(string) bool, fn func(string, *declcfg.DeclarativeConfig) error) error {
		return declcfg.EachPackage(ctx, dir, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
			if unread != nil && unread(pkg) {
				cfg = nil
			}
			return fn(pkg, cfg)
		})
	}
}

// bundleNames are the names of the bundles of cfg, sorted.
func bundleNames(cfg *declcfg.DeclarativeConfig) []string {
	var out []string
	for _, b := range cfg.Bundles {
		out = append(out, b.Name)
	}
	slices.Sort(out)
	return out
}

// TestRun: each operation streamed from a catalog directory into a new
// one: the bundles left, the notes, and a failure that writes nothing.
func TestRun(t *testing.T) {
	newR := testBundle("2.0.0", "", nil, "stable", "stable")
	newR.Bundle.Name, newR.Bundle.Package = "r.v2.0.0", "r"
	newR.Meta.Annotations[annotation.Package] = "r"
	newR.Bundle.Properties = []declcfg.Property{declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: "r", Version: "2.0.0"})}
	for _, tc := range []struct {
		name    string
		op      func(notes func(string)) Op
		bundles []string
		notes   []string
		unread  []string // of p, q and ""
		err     string
	}{
		{name: "remove", op: func(n func(string)) Op { return RemoveOp([]string{"q"}, false, n) },
			bundles: []string{"p.v1.1.0", "p.v1.2.0", "p.v1.3.0", "p.v1.4.0"}, notes: []string{"removed package q (1 channels, 2 bundles)"}},
		{name: "remove a missing package", op: func(n func(string)) Op { return RemoveOp([]string{"x"}, false, n) },
			err: "error deleting packages from database: error removing operator package x: no package found for packagename x"},
		{name: "remove a missing package, permissive", op: func(n func(string)) Op { return RemoveOp([]string{"x", "p"}, true, n) },
			bundles: []string{"q.v0", "q.v1"}, notes: []string{"removed package p (1 channels, 4 bundles)",
				"permissive: error deleting packages from database: error removing operator package x: no package found for packagename x"}},
		{name: "prune", op: func(n func(string)) Op { return PruneOp([]string{"q", "x"}, n) },
			bundles: []string{"q.v0", "q.v1"}, notes: []string{"pruned package p", "note: package x is not in the catalog: nothing to keep"},
			unread: []string{"p"}},
		{name: "prune stranded", op: PruneStrandedOp,
			bundles: []string{"p.v1.1.0", "p.v1.2.0", "p.v1.3.0", "p.v1.4.0", "q.v1"}, notes: []string{"removed stranded bundle q.v0 of package q: no channel holds it"}},
		{name: "add a new package", op: func(n func(string)) Op { return NewBundleAdd([]NewBundle{newR}, false, n).Op() },
			bundles: []string{"p.v1.1.0", "p.v1.2.0", "p.v1.3.0", "p.v1.4.0", "q.v0", "q.v1", "r.v2.0.0"}},
		{name: "a failed check", op: func(func(string)) Op { return Op{Apply: keepAll, Check: func() error { return errors.New("refused") }} },
			err: "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			var notes []string
			op := tc.op(func(s string) { notes = append(notes, s) })
			var unread []string
			for _, pkg := range []string{"p", "q", ""} {
				if op.Unread != nil && op.Unread(pkg) {
					unread = append(unread, pkg)
				}
			}
			require.Equal(t, tc.unread, unread, "the packages the op need not read")
			err := Run(context.Background(), dirSource(t, twoPackages()), op, out)
			if tc.err != "" {
				require.EqualError(t, err, tc.err)
				require.NoDirExists(t, out, "a failed run writes nothing")
				return
			}
			require.NoError(t, err)
			got, err := declcfg.LoadDir(context.Background(), out)
			require.NoError(t, err)
			require.Equal(t, tc.bundles, bundleNames(got))
			if tc.notes != nil {
				require.Equal(t, tc.notes, notes)
			}
		})
	}
}

func keepAll(_ string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
	return cfg, nil
}

// TestDeprecateOp: the survey refuses a missing image unless permissive,
// and the op truncates the package named.
func TestDeprecateOp(t *testing.T) {
	ctx := context.Background()
	src := dirSource(t, twoPackages())
	_, err := DeprecateOp(ctx, src, []string{"img/x:1"}, false, false, nil)
	require.EqualError(t, err, "target bundlepaths for deprecation missing from registry: [img/x:1]")

	var notes []string
	op, err := DeprecateOp(ctx, src, []string{"img/x:1", "img/p:1.3.0"}, false, true, func(s string) { notes = append(notes, s) })
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, Run(ctx, src, op, out))
	got, err := declcfg.LoadDir(ctx, out)
	require.NoError(t, err)
	require.Equal(t, []string{"p.v1.3.0", "p.v1.4.0", "q.v0", "q.v1"}, bundleNames(got))
	require.Equal(t, "permissive: target bundlepaths for deprecation missing from registry: [img/x:1]", notes[0])
}

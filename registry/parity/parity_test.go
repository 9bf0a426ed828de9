package parity

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/source"
)

// Our migration must lose nothing any real database served.
func TestFixturesOurMigration(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			out := filepath.Join(t.TempDir(), "catalog")
			_, err := migrate.Migrate(ctx, fixtureDB(name), out)
			require.NoError(t, err)

			res, err := Check(ctx, fixtureDB(name), out)
			require.NoError(t, err)
			assert.Empty(t, keys(res.Losses()), "losses")
			assert.True(t, res.OK(false))
			assert.Equal(t, input.KindSQLite, res.Left.Kind)
			assert.Equal(t, input.KindDeclcfg, res.Right.Kind)
			// The sqlite server fills plural and trims GetBundleForChannel
			// for every catalog: the check must have seen and named them.
			assert.True(t, rulesOf(res.Diffs)[RulePluralSQLiteOnly.Name])
			assert.True(t, rulesOf(res.Diffs)[RuleGetBundleForChannelShape.Name])
			assert.False(t, res.OK(true), "strict fails on benign differences")
			if name == "small-fbb-deprecated" {
				assert.True(t, rulesOf(res.Diffs)[RuleDeprecatedBundleDropped.Name])
			}
		})
	}

	// With --keep-deprecated the bundle stays, its deprecation served
	// from an olm.deprecations blob.
	ctx := context.Background()
	db := fixtureDB("small-fbb-deprecated")
	out := filepath.Join(t.TempDir(), "catalog")
	_, err := migrate.Migrate(ctx, db, out, migrate.WithKeepDeprecated(true))
	require.NoError(t, err)
	res, err := Check(ctx, db, out)
	require.NoError(t, err)
	assert.Empty(t, keys(res.Losses()))
	assert.False(t, rulesOf(res.Diffs)[RuleDeprecatedBundleDropped.Name])
	assert.True(t, rulesOf(res.Diffs)[RuleDeprecationFBCOnly.Name])
}

// opm's own output loses exactly the olm.constraint dependency of the
// edge-* databases (§5 step 4). Its other known faults are invisible over
// the API: the stranded bundles of observability-operator have no channel
// entry, so the sqlite server never served them either.
func TestFixturesOPMMigrate(t *testing.T) {
	constraintLoss := func(rpc, req, path string) diffKey {
		return diffKey{rpc, req, path, RuleDependencyMissing.Name}
	}
	edgeLosses := []diffKey{
		constraintLoss(RPCGetBundle, "pkgName=etcd channelName=alpha csvName=etcdoperator.v0.9.2", ".dependencies[olm.constraint]"),
		constraintLoss(RPCGetBundle, "pkgName=etcd channelName=stable csvName=etcdoperator.v0.9.2", ".dependencies[olm.constraint]"),
		constraintLoss(RPCGetBundleThatReplaces, "csvName=etcdoperator.v0.9.0 pkgName=etcd channelName=alpha", ".dependencies[olm.constraint]"),
		constraintLoss(RPCGetBundleThatReplaces, "csvName=etcdoperator.v0.9.0 pkgName=etcd channelName=stable", ".dependencies[olm.constraint]"),
		constraintLoss(RPCGetBundleThatReplaces, "csvName=etcdoperator.v0.9.1 pkgName=etcd channelName=alpha", ".dependencies[olm.constraint]"),
		constraintLoss(RPCGetBundleThatReplaces, "csvName=etcdoperator.v0.9.1 pkgName=etcd channelName=stable", ".dependencies[olm.constraint]"),
		constraintLoss(RPCGetDefaultBundleThatProvides, "group=etcd.database.coreos.com version=v1beta2 kind=EtcdBackup", ".dependencies[olm.constraint]"),
		constraintLoss(RPCGetDefaultBundleThatProvides, "group=etcd.database.coreos.com version=v1beta2 kind=EtcdCluster", ".dependencies[olm.constraint]"),
		constraintLoss(RPCGetDefaultBundleThatProvides, "group=etcd.database.coreos.com version=v1beta2 kind=EtcdRestore", ".dependencies[olm.constraint]"),
		constraintLoss(RPCListBundles, "", "[etcd/alpha/etcdoperator.v0.9.2].dependencies[olm.constraint]"),
		constraintLoss(RPCListBundles, "", "[etcd/stable/etcdoperator.v0.9.2].dependencies[olm.constraint]"),
	}
	wantLosses := map[string][]diffKey{
		"edge-before-substitutes": edgeLosses,
		"edge-substitutes":        edgeLosses,
	}
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			// With --migrate-level bundle-object-to-csv-metadata opm loses
			// the same and nothing more: image bundles' manifests become a
			// synthetic CSV, a named benign difference.
			if csvmeta := filepath.Join(fixtures, name, "opm-migrate-csvmetadata"); dirExists(csvmeta) {
				res, err := Check(context.Background(), fixtureDB(name), csvmeta)
				require.NoError(t, err)
				assert.ElementsMatch(t, orEmpty(wantLosses[name]), keys(res.Losses()), "csv metadata")
				// opm-manifests' bundles have no image: opm kept their objects.
				assert.Equal(t, name != "opm-manifests", rulesOf(res.Diffs)[RuleCSVMetadataManifests.Name])
			}

			res, err := Check(context.Background(), fixtureDB(name), fixtureOPM(name))
			require.NoError(t, err)
			want := wantLosses[name]
			if want == nil {
				want = []diffKey{}
			}
			assert.ElementsMatch(t, want, keys(res.Losses()))
			assert.Equal(t, len(want) == 0, res.OK(false))
			if name == "small-fbb-deprecated" {
				// opm dropped foo.v0.2.0 (olm.deprecated): named, benign.
				var dropped []string
				for _, d := range res.BenignDiffs() {
					if d.Rule == RuleDeprecatedBundleDropped.Name {
						dropped = append(dropped, d.RPC+" "+d.Path)
					}
				}
				assert.Contains(t, dropped, "ListBundles [foo/beta/foo.v0.2.0]")
				assert.Contains(t, dropped, "GetBundle error")
			}
		})
	}
}

// Mutations of a good migrated catalog must surface as the matching loss.
func TestMutations(t *testing.T) {
	entries := func(b blob) []any { return b["entries"].([]any) }
	tests := []struct {
		name    string
		fixture string
		edit    func(path string, blobs []blob) []blob
		// want must all be among the losses; every loss must mention
		// mention.
		want    []diffKey
		mention string
	}{
		{
			name:    "delete bundle",
			fixture: "small-fbb",
			edit: func(_ string, blobs []blob) []blob {
				return slices.DeleteFunc(blobs, func(b blob) bool {
					if b["schema"] == "olm.channel" && b["package"] == "baz" {
						b["entries"] = slices.DeleteFunc(entries(b), func(e any) bool {
							return e.(blob)["name"] == "baz.v1.0.0"
						})
					}
					return b["schema"] == "olm.bundle" && b["name"] == "baz.v1.0.0"
				})
			},
			want: []diffKey{
				{RPCListBundles, "", "[baz/stable/baz.v1.0.0]", RuleBundleMissing.Name},
				{RPCGetBundle, "pkgName=baz channelName=stable csvName=baz.v1.0.0", "error", RuleBundleMissing.Name},
				{RPCGetChannelEntriesThatProvide, "group=test.baz version=v1 kind=Baz", `[baz/stable/baz.v1.0.0 replaces=""]`, RuleEntryMissing.Name},
			},
			mention: "baz.v1.0.0",
		},
		{
			name:    "delete property",
			fixture: "small-fbb",
			edit: func(_ string, blobs []blob) []blob {
				for _, b := range blobs {
					if b["schema"] == "olm.bundle" && b["name"] == "foo.v0.1.0" {
						b["properties"] = slices.DeleteFunc(b["properties"].([]any), func(p any) bool {
							return p.(blob)["type"] == "olm.package.required"
						})
					}
				}
				return blobs
			},
			want: []diffKey{
				{RPCGetBundle, "pkgName=foo channelName=beta csvName=foo.v0.1.0", ".dependencies[olm.package]", RuleDependencyMissing.Name},
				{RPCGetBundle, "pkgName=foo channelName=stable csvName=foo.v0.1.0", ".dependencies[olm.package]", RuleDependencyMissing.Name},
				{RPCListBundles, "", "[foo/beta/foo.v0.1.0].dependencies[olm.package]", RuleDependencyMissing.Name},
			},
			mention: "foo.v0.1.0",
		},
		{
			name:    "delete edge",
			fixture: "small-fbb-deprecated",
			edit: func(_ string, blobs []blob) []blob {
				for _, b := range blobs {
					if b["schema"] == "olm.channel" && b["package"] == "foo" && b["name"] == "beta" {
						for _, e := range entries(b) {
							if e.(blob)["name"] == "foo.v0.3.1" {
								delete(e.(blob), "replaces")
							}
						}
					}
				}
				return blobs
			},
			want: []diffKey{
				{RPCListBundles, "", "[foo/beta/foo.v0.3.1].edges[foo.v0.2.0]", RuleEdgeMissing.Name},
				{RPCGetChannelEntriesThatReplace, "csvName=foo.v0.2.0", "[foo/beta/foo.v0.3.1]", RuleEdgeMissing.Name},
			},
			mention: "foo.v0.2.0",
		},
		{
			name:    "change default channel",
			fixture: "small-fbb",
			edit: func(_ string, blobs []blob) []blob {
				for _, b := range blobs {
					if b["schema"] == "olm.package" && b["name"] == "bar" {
						b["defaultChannel"] = "alpha"
					}
				}
				return blobs
			},
			want: []diffKey{
				{RPCGetPackage, "name=bar", ".defaultChannelName", RuleDefaultChannel.Name},
			},
			mention: "bar",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			base, err := Check(ctx, fixtureDB(tt.fixture), fixtureOPM(tt.fixture))
			require.NoError(t, err)
			require.Empty(t, keys(base.Losses()), "the unmutated catalog has parity")

			mutated := mutateCopy(t, fixtureOPM(tt.fixture), tt.edit)
			res, err := Check(ctx, fixtureDB(tt.fixture), mutated)
			require.NoError(t, err)
			losses := keys(res.Losses())
			for _, w := range tt.want {
				assert.Contains(t, losses, w)
			}
			for _, d := range res.Losses() {
				assert.Contains(t, d.Request+" "+d.Path+" "+d.Left+" "+d.Right, tt.mention, "unrelated loss %+v", d)
			}
			assert.False(t, res.OK(false))
			assert.Error(t, res.Err(false))
		})
	}
}

// Two sides of the same kind must answer identically: no benign rule
// applies between two sqlite or two declarative config servers.
func TestSameKindIsExact(t *testing.T) {
	ctx := context.Background()
	res, err := Check(ctx, fixtureDB("small-fbb"), fixtureDB("small-fbb"))
	require.NoError(t, err)
	assert.Empty(t, res.Diffs)
	assert.True(t, res.OK(true))

	res, err = Check(ctx, fixtureOPM("small-fbb"), fixtureOPM("small-fbb"))
	require.NoError(t, err)
	assert.Empty(t, res.Diffs)

	// sqlite vs declcfg differences are losses between two declarative
	// config catalogs that differ the same way.
	res, err = Check(ctx, fixtureOPM("edge-substitutes"), fixtureOPM("edge-before-substitutes"))
	require.NoError(t, err)
	assert.NotEmpty(t, res.Losses())
	for _, d := range res.Diffs {
		assert.Equal(t, Loss, d.Class, "%+v", d)
	}
}

// A side can be a live server: the sqlite database against a
// declarative config catalog served on loopback.
func TestGRPCSide(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	q, _, err := source.Open(ctx, fixtureOPM("small-fbb"))
	require.NoError(t, err)
	defer q.Close()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() { done <- registry.Serve(ctx, lis, q) }()
	defer func() {
		cancel()
		require.NoError(t, <-done)
	}()

	ref := "grpc://" + lis.Addr().String()
	res, err := Check(ctx, fixtureDB("small-fbb"), ref, WithKinds("", input.KindDeclcfg))
	require.NoError(t, err)
	assert.Equal(t, input.KindGRPC, res.Right.Kind)
	assert.Equal(t, input.KindDeclcfg, res.Right.Backend)
	assert.Empty(t, keys(res.Losses()))
	assert.True(t, rulesOf(res.Diffs)[RulePluralSQLiteOnly.Name])

	// The same catalog on both ends of the wire is identical.
	res, err = Check(ctx, fixtureOPM("small-fbb"), ref, WithKinds("", input.KindDeclcfg))
	require.NoError(t, err)
	assert.Empty(t, res.Diffs)
}

func TestBadSides(t *testing.T) {
	ctx := context.Background()
	_, err := Check(ctx, filepath.Join(t.TempDir(), "missing.db"), fixtureOPM("small-fbb"))
	assert.ErrorContains(t, err, "missing.db")
	_, err = Check(ctx, fixtureDB("small-fbb"), "grpc://")
	assert.ErrorContains(t, err, "host:port")

	// Nothing listens on a closed port: the check fails, it does not
	// report every call as a difference.
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := lis.Addr().String()
	require.NoError(t, lis.Close())
	_, err = Check(ctx, fixtureDB("small-fbb"), "grpc://"+addr, WithKinds("", input.KindDeclcfg))
	assert.Error(t, err)
}

// Every call is counted once, and the enumeration covers what the
// catalog holds (small-fbb: 3 packages, 5 channels, 10 bundles).
func TestCallCoverage(t *testing.T) {
	res, err := Check(context.Background(), fixtureDB("small-fbb"), fixtureOPM("small-fbb"), WithConcurrency(3))
	require.NoError(t, err)
	calls := map[string]int{}
	total := 0
	for _, s := range res.Stats {
		calls[s.RPC] = s.Calls
		total += s.Calls
		assert.Equal(t, s.Calls, s.Identical+s.Benign+s.Losses, s.RPC)
	}
	assert.Equal(t, total, res.Calls)
	assert.Equal(t, 1, calls[RPCListPackages])
	assert.Equal(t, 1, calls[RPCListBundles])
	assert.Equal(t, 3+1, calls[RPCGetPackage], "3 packages and a probe")
	assert.Equal(t, 14+3, calls[RPCGetBundle], "14 channel entries of 10 bundles, and 3 probes")
	assert.Equal(t, 5+2, calls[RPCGetBundleForChannel], "5 channels and 2 probes")
	// foo, bar, baz provide/require 5 GVKs, plus a probe, for each of 3 RPCs.
	assert.Equal(t, 6, calls[RPCGetChannelEntriesThatProvide])
	assert.Equal(t, 6, calls[RPCGetLatestChannelEntriesThatProvide])
	assert.Equal(t, 6, calls[RPCGetDefaultBundleThatProvides])
	assert.Greater(t, calls[RPCGetChannelEntriesThatReplace], 10)
	assert.Greater(t, calls[RPCGetBundleThatReplaces], 10)
}

func TestErrNamesTheRule(t *testing.T) {
	res, err := Check(context.Background(), fixtureDB("edge-substitutes"), fixtureOPM("edge-substitutes"))
	require.NoError(t, err)
	assert.ErrorContains(t, res.Err(false), "dependency-missing")
}

// The real servers' answers were compared call by call in each fixture's
// grpc/COMPARE.txt. Served by olmcat, the same calls must agree: a call
// that was identical (or equal after ordering) has no difference, and a
// call that differed has at least one, classified.
func TestAgreesWithRecordedComparison(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(fixtures, "*", "grpc", "COMPARE.txt"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		name := filepath.Base(filepath.Dir(filepath.Dir(f)))
		t.Run(name, func(t *testing.T) {
			res, err := Check(context.Background(), fixtureDB(name), fixtureOPM(name))
			require.NoError(t, err)
			diffsOf := map[string][]Diff{}
			for _, d := range res.Diffs {
				k := recordedName(d.RPC, d.Request)
				diffsOf[k] = append(diffsOf[k], d)
			}
			data, err := os.ReadFile(f)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
			same, differs := 0, 0
			for _, line := range lines {
				file, verdict, _ := strings.Cut(line, " ")
				verdict = strings.TrimSpace(verdict)
				file = strings.TrimSuffix(file, ".json")
				switch {
				case verdict == "identical", strings.HasPrefix(verdict, "equal after"):
					assert.Empty(t, diffsOf[file], "%s was %s between the real servers", file, verdict)
					same++
				case strings.HasPrefix(verdict, "differs"):
					assert.NotEmpty(t, diffsOf[file], "%s %s between the real servers", file, verdict)
					differs++
				}
			}
			assert.Positive(t, same)
			assert.Positive(t, differs)
		})
	}
}

// recordedName names a call as the fixtures' grpc/ files do.
func recordedName(rpc, request string) string {
	f := map[string]string{}
	for _, kv := range strings.Fields(request) {
		k, v, _ := strings.Cut(kv, "=")
		f[k] = v
	}
	switch rpc {
	case RPCGetPackage:
		return rpc + "-" + f["name"]
	case RPCGetBundle:
		return rpc + "-" + f["pkgName"] + "-" + f["channelName"] + "-" + f["csvName"]
	case RPCGetBundleForChannel:
		return rpc + "-" + f["pkgName"] + "-" + f["channelName"]
	case RPCGetBundleThatReplaces:
		return rpc + "-" + f["pkgName"] + "-" + f["channelName"] + "-" + f["csvName"]
	case RPCGetChannelEntriesThatReplace:
		return rpc + "-" + f["csvName"]
	case RPCGetChannelEntriesThatProvide, RPCGetLatestChannelEntriesThatProvide, RPCGetDefaultBundleThatProvides:
		return rpc + "-" + f["group"] + "_" + f["version"] + "_" + f["kind"]
	}
	return rpc
}

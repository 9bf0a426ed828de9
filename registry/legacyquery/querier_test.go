package legacyquery

//lint:file-ignore SA1019 these tests check the deprecated GetBundleForChannel RPC the servers still serve

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"
	_ "modernc.org/sqlite"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/api"
)

const fixtures = "../../fixtures/legacy"

// serve opens a fixture db, serves it over real loopback TCP gRPC and
// returns a client; everything is torn down with the test.
func serve(t testing.TB, dbPath string, opts ...Option) (api.RegistryClient, *Querier) {
	t.Helper()
	ctx := context.Background()
	db, err := legacy.Open(ctx, dbPath, legacy.Lazy(), legacy.SkipManifests())
	require.NoError(t, err)
	q, err := New(ctx, db, opts...)
	if err != nil {
		db.Close()
		require.NoError(t, err)
	}
	t.Cleanup(func() { assert.NoError(t, q.Close()) })

	lis, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := registry.NewGRPCServer(q)
	done := make(chan error, 1)
	go func() { done <- s.Serve(lis) }()
	t.Cleanup(func() {
		s.Stop()
		assert.NoError(t, <-done)
	})
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	return api.NewRegistryClient(conn), q
}

// rawDB opens a fixture db read-only with plain SQL, to derive expected
// values independently of the legacy reader.
func rawDB(t testing.TB, dbPath string) *sql.DB {
	t.Helper()
	abs, err := filepath.Abs(dbPath)
	require.NoError(t, err)
	db, err := sql.Open("sqlite", "file://"+abs+"?mode=ro&immutable=1")
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func queryStrings(t testing.TB, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	require.NoError(t, err)
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		require.NoError(t, rows.Scan(&s))
		out = append(out, s.String)
	}
	require.NoError(t, rows.Err())
	return out
}

// channelArgs resolves "<pkg>-<channel>-<csv>" (csv may be empty for
// "<pkg>-<channel>") against the db's channels and entry names: package
// and channel names contain dashes, so the split is only unambiguous
// against real names.
func channelArgs(t testing.TB, db *sql.DB, args string, withCSV bool) (pkg, channel, csv string) {
	t.Helper()
	rows, err := db.Query(`SELECT package_name, name FROM channel`)
	require.NoError(t, err)
	defer rows.Close()
	names := map[string]bool{}
	for _, n := range queryStrings(t, db, `SELECT DISTINCT operatorbundle_name FROM channel_entry`) {
		names[n] = true
	}
	best := -1
	for rows.Next() {
		var p, c string
		require.NoError(t, rows.Scan(&p, &c))
		prefix := p + "-" + c
		switch {
		case !withCSV && args == prefix:
			return p, c, ""
		case withCSV && strings.HasPrefix(args, prefix+"-") && names[strings.TrimPrefix(args, prefix+"-")]:
			if len(prefix) > best {
				best, pkg, channel, csv = len(prefix), p, c, strings.TrimPrefix(args, prefix+"-")
			}
		}
	}
	require.NoError(t, rows.Err())
	require.GreaterOrEqual(t, best, 0, "cannot split %q into package, channel and bundle", args)
	return pkg, channel, csv
}

// replacerCandidates are the bundles any LIMIT 1 of opm's
// GetBundleThatReplaces could have picked.
func replacerCandidates(t testing.TB, db *sql.DB, name, pkg, channel string) []string {
	t.Helper()
	return queryStrings(t, db, `SELECT DISTINCT r.operatorbundle_name FROM channel_entry c
		JOIN channel_entry r ON r.replaces = c.entry_id
		JOIN operatorbundle b ON b.name = r.operatorbundle_name
		WHERE c.operatorbundle_name = ? AND c.package_name = ? AND c.channel_name = ?`, name, pkg, channel)
}

// defaultProviderCandidates are the (package/bundle) min-depth providers
// in default channels that opm's GetDefaultBundleThatProvides could have
// returned, one package's group being as good as another's.
func defaultProviderCandidates(t testing.TB, db *sql.DB, group, version, kind string) []string {
	t.Helper()
	value := manifest.GVK{Group: group, Version: version, Kind: kind}.PropertyValue()
	return queryStrings(t, db, `WITH p AS (
		SELECT ce.package_name AS pkg, ce.operatorbundle_name AS bundle, ce.depth AS depth FROM channel_entry ce
		JOIN operatorbundle b ON b.name = ce.operatorbundle_name
		JOIN properties pr ON pr.operatorbundle_name = ce.operatorbundle_name
		JOIN package pk ON pk.name = ce.package_name AND pk.default_channel = ce.channel_name
		WHERE pr.type = 'olm.gvk' AND pr.value = ?)
		SELECT DISTINCT p.pkg || '/' || p.bundle FROM p WHERE p.depth = (SELECT min(depth) FROM p p2 WHERE p2.pkg = p.pkg)`, string(value))
}

// TestRecordedAnswers calls every RPC recorded from `opm registry serve`
// for each fixture and compares the answers as data.
func TestRecordedAnswers(t *testing.T) {
	for _, name := range []string{"small-fbb", "small-fbb-deprecated", "opm-manifests", "edge-before-substitutes", "edge-substitutes", "community-bundles"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dbPath := filepath.Join(fixtures, name, "index.db")
			dir := filepath.Join(fixtures, name, "grpc", "sqlite")
			client, _ := serve(t, dbPath)
			raw := rawDB(t, dbPath)
			files, err := filepath.Glob(filepath.Join(dir, "*.json"))
			require.NoError(t, err)
			require.NotEmpty(t, files)
			for _, f := range files {
				base := strings.TrimSuffix(filepath.Base(f), ".json")
				t.Run(base, func(t *testing.T) {
					checkAnswer(t, client, raw, base, readAnswer(t, f))
				})
			}
		})
	}
}

// checkAnswer makes the call a recorded answer file names and compares.
func checkAnswer(t *testing.T, client api.RegistryClient, raw *sql.DB, base string, want answer) {
	t.Helper()
	ctx := context.Background()
	rpc, args, _ := strings.Cut(base, "-")
	gvkArgs := func() (string, string, string) {
		parts := strings.Split(args, "_")
		require.Len(t, parts, 3, "group_version_kind in %q", base)
		return parts[0], parts[1], parts[2]
	}
	switch rpc {
	case "ListPackages":
		stream, err := client.ListPackages(ctx, &api.ListPackageRequest{})
		require.NoError(t, err)
		got, err := collect(stream.Recv)
		require.Empty(t, errorMismatch(want, err))
		exp, err := decodeAll(want.msgs, func() *api.PackageName { return &api.PackageName{} })
		require.NoError(t, err)
		assert.Empty(t, diff(normNames(exp), normNames(got)))

	case "GetPackage":
		got, err := client.GetPackage(ctx, &api.GetPackageRequest{Name: args})
		require.Empty(t, errorMismatch(want, err))
		if want.errMsg != "" {
			return
		}
		exp, err := decodeAll(want.msgs, func() *api.Package { return &api.Package{} })
		require.NoError(t, err)
		require.Len(t, exp, 1)
		assert.Empty(t, diff([]*api.Package{normPackage(exp[0])}, []*api.Package{normPackage(got)}))

	case "GetBundle", "GetBundleForChannel":
		var got *api.Bundle
		var err error
		if rpc == "GetBundle" {
			pkg, ch, csv := channelArgs(t, raw, args, true)
			got, err = client.GetBundle(ctx, &api.GetBundleRequest{PkgName: pkg, ChannelName: ch, CsvName: csv})
		} else {
			pkg, ch, _ := channelArgs(t, raw, args, false)
			got, err = client.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: pkg, ChannelName: ch})
		}
		require.Empty(t, errorMismatch(want, err))
		if want.errMsg != "" {
			return
		}
		compareBundle(t, want, got)

	case "GetBundleThatReplaces":
		pkg, ch, csv := channelArgs(t, raw, args, true)
		got, err := client.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: csv, PkgName: pkg, ChannelName: ch})
		require.Empty(t, errorMismatch(want, err))
		if want.errMsg != "" {
			return
		}
		exp := compareOrCandidate(t, want, got, replacerCandidates(t, raw, csv, pkg, ch), func(b *api.Bundle) string { return b.CsvName })
		if exp {
			compareBundle(t, want, got)
		}

	case "GetDefaultBundleThatProvides":
		g, v, k := gvkArgs()
		got, err := client.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: g, Version: v, Kind: k})
		require.Empty(t, errorMismatch(want, err))
		if want.errMsg != "" {
			return
		}
		exp := compareOrCandidate(t, want, got, defaultProviderCandidates(t, raw, g, v, k), func(b *api.Bundle) string { return b.PackageName + "/" + b.CsvName })
		if exp {
			compareBundle(t, want, got)
		}

	case "GetChannelEntriesThatReplace", "GetChannelEntriesThatProvide", "GetLatestChannelEntriesThatProvide":
		var got []*api.ChannelEntry
		var err error
		switch rpc {
		case "GetChannelEntriesThatReplace":
			stream, serr := client.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: args})
			require.NoError(t, serr)
			got, err = collect(stream.Recv)
		case "GetChannelEntriesThatProvide":
			g, v, k := gvkArgs()
			stream, serr := client.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{Group: g, Version: v, Kind: k})
			require.NoError(t, serr)
			got, err = collect(stream.Recv)
		default:
			g, v, k := gvkArgs()
			stream, serr := client.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{Group: g, Version: v, Kind: k})
			require.NoError(t, serr)
			got, err = collect(stream.Recv)
		}
		require.Empty(t, errorMismatch(want, err))
		exp, derr := decodeAll(want.msgs, func() *api.ChannelEntry { return &api.ChannelEntry{} })
		require.NoError(t, derr)
		assert.Empty(t, diff(normEntries(exp), normEntries(got)))

	case "ListBundles":
		stream, err := client.ListBundles(ctx, &api.ListBundlesRequest{})
		require.NoError(t, err)
		got, err := collect(stream.Recv)
		require.Empty(t, errorMismatch(want, err))
		exp, err := decodeAll(want.msgs, func() *api.Bundle { return &api.Bundle{} })
		require.NoError(t, err)
		assert.Empty(t, diff(normBundles(exp), normBundles(got)))

	default:
		require.Failf(t, "unknown RPC in answer file", "%s", base)
	}
}

func compareBundle(t *testing.T, want answer, got *api.Bundle) {
	t.Helper()
	exp, err := decodeAll(want.msgs, func() *api.Bundle { return &api.Bundle{} })
	require.NoError(t, err)
	require.Len(t, exp, 1)
	assert.Empty(t, diff([]*api.Bundle{normBundle(exp[0])}, []*api.Bundle{normBundle(got)}))
}

// compareOrCandidate reports whether got is the recorded choice (compare
// it fully then); otherwise both must belong to the candidate set the
// sqlite server chose from without an order.
func compareOrCandidate(t *testing.T, want answer, got *api.Bundle, candidates []string, key func(*api.Bundle) string) bool {
	t.Helper()
	exp, err := decodeAll(want.msgs, func() *api.Bundle { return &api.Bundle{} })
	require.NoError(t, err)
	require.Len(t, exp, 1)
	if key(exp[0]) == key(got) {
		return true
	}
	assert.Contains(t, candidates, key(exp[0]), "recorded answer outside the candidate set")
	assert.Contains(t, candidates, key(got), "answer outside the candidate set")
	t.Logf("recorded %s, served %s: both qualify (%v)", key(exp[0]), key(got), candidates)
	return false
}

// TestErrors checks the not-found texts of every RPC (registry-grpc-api.md §4.13).
func TestErrors(t *testing.T) {
	client, _ := serve(t, filepath.Join(fixtures, "small-fbb", "index.db"))
	ctx := context.Background()
	recvErr := func(recv func() (*api.ChannelEntry, error)) error {
		_, err := collect(recv)
		return err
	}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"GetPackage", func() error { _, err := client.GetPackage(ctx, &api.GetPackageRequest{Name: "nope"}); return err }, "package nope not found"},
		{"GetBundle wrong channel", func() error {
			_, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: "foo", ChannelName: "stable", CsvName: "foo.v0.3.1"})
			return err
		}, "no entry found for foo stable foo.v0.3.1"},
		{"GetBundle absent skip target", func() error {
			_, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: "foo", ChannelName: "beta", CsvName: "foo.v0.1.1"})
			return err
		}, "no entry found for foo beta foo.v0.1.1"},
		{"GetBundleForChannel", func() error {
			_, err := client.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: "foo", ChannelName: "alpha"})
			return err
		}, "no entry found for foo alpha"},
		{"GetBundleThatReplaces head", func() error {
			_, err := client.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: "foo.v0.3.1", PkgName: "foo", ChannelName: "beta"})
			return err
		}, "no entry found for foo beta"},
		{"GetChannelEntriesThatReplace", func() error {
			s, err := client.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: "foo.v0.3.1"})
			require.NoError(t, err)
			return recvErr(s.Recv)
		}, "no channel entries found that replace foo.v0.3.1"},
		{"GetChannelEntriesThatProvide", func() error {
			s, err := client.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{Group: "g", Version: "v", Kind: "K"})
			require.NoError(t, err)
			return recvErr(s.Recv)
		}, "no channel entries found that provide g v K"},
		{"GetLatestChannelEntriesThatProvide", func() error {
			s, err := client.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{Group: "g", Version: "v", Kind: "K"})
			require.NoError(t, err)
			return recvErr(s.Recv)
		}, "no channel entries found that provide g v K"},
		{"GetDefaultBundleThatProvides", func() error {
			_, err := client.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: "g", Version: "v", Kind: "K"})
			return err
		}, "no entry found that provides g v K"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Empty(t, errorMismatch(answer{errCode: "Unknown", errMsg: tt.want}, tt.call()))
		})
	}
}

// TestOmitManifestsFalse: configmap-server's behaviour streams manifests
// of image bundles too (where the bundle column holds them).
func TestOmitManifestsFalse(t *testing.T) {
	client, _ := serve(t, filepath.Join(fixtures, "small-fbb", "index.db"), OmitManifests(false))
	stream, err := client.ListBundles(context.Background(), &api.ListBundlesRequest{})
	require.NoError(t, err)
	got, err := collect(stream.Recv)
	require.NoError(t, err)
	withCSV := map[string]bool{}
	for _, b := range got {
		require.NotEmpty(t, b.BundlePath)
		withCSV[b.CsvName] = b.CsvJson != ""
		if b.CsvJson != "" {
			assert.Contains(t, b.Object, b.CsvJson)
			assert.False(t, strings.HasSuffix(b.CsvJson, "\n"))
		}
	}
	// Heads keep their manifests; ClearNonHeadBundles removed the others'.
	assert.True(t, withCSV["foo.v0.3.1"])
	assert.True(t, withCSV["bar.v1.0.0"])
	assert.False(t, withCSV["foo.v0.1.0"])
}

// TestConcurrentCalls hammers one server from many goroutines (run with
// -race): the index is shared read-only and manifests are read through
// the database pool.
func TestConcurrentCalls(t *testing.T) {
	client, _ := serve(t, filepath.Join(fixtures, "community-bundles", "index.db"))
	ctx := context.Background()
	ref, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: "kiali", ChannelName: "stable", CsvName: "kiali-operator.v1.36.0"})
	require.NoError(t, err)
	errc := make(chan error, 16)
	for range 16 {
		go func() {
			for range 10 {
				b, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: "kiali", ChannelName: "stable", CsvName: "kiali-operator.v1.36.0"})
				if err != nil {
					errc <- err
					return
				}
				if !proto.Equal(b, ref) {
					errc <- assert.AnError
					return
				}
				s, err := client.ListBundles(ctx, &api.ListBundlesRequest{})
				if err != nil {
					errc <- err
					return
				}
				if _, err := collect(s.Recv); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	for range 16 {
		require.NoError(t, <-errc)
	}
}

// TestOlderLevels serves databases at schema levels 5 and 10 (no recorded
// answers exist; expected values were read from the files with sqlite3).
func TestOlderLevels(t *testing.T) {
	ctx := context.Background()

	t.Run("level5 opreg-indexer-bundles", func(t *testing.T) {
		client, _ := serve(t, filepath.Join(fixtures, "opreg-indexer-bundles", "index.db"))

		s, err := client.ListPackages(ctx, &api.ListPackageRequest{})
		require.NoError(t, err)
		names, err := collect(s.Recv)
		require.NoError(t, err)
		assert.Equal(t, []string{"etcd", "prometheus", "strimzi-kafka-operator"}, pkgNames(names))

		p, err := client.GetPackage(ctx, &api.GetPackageRequest{Name: "etcd"})
		require.NoError(t, err)
		assert.Equal(t, "alpha", p.DefaultChannelName)
		assert.Equal(t, map[string]string{"alpha": "etcdoperator.v0.9.2", "beta": "etcdoperator.v0.9.0", "stable": "etcdoperator.v0.9.2"}, channelHeads(p))

		b, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: "etcd", ChannelName: "alpha", CsvName: "etcdoperator.v0.9.2"})
		require.NoError(t, err)
		assert.Equal(t, "quay.io/olmtest/example-bundle:etcdoperator.v0.9.2", b.BundlePath)
		assert.Equal(t, "0.9.2", b.Version)
		assert.Equal(t, "< 0.6.0", b.SkipRange)
		assert.Contains(t, b.CsvJson, `"name":"etcdoperator.v0.9.2"`)
		assert.Contains(t, gvks(b.ProvidedApis), "etcd.database.coreos.com/v1beta2/EtcdCluster/etcdclusters")

		fc, err := client.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: "etcd", ChannelName: "beta"})
		require.NoError(t, err)
		assert.Equal(t, "etcdoperator.v0.9.0", fc.CsvName)
		assert.Len(t, fc.CsvJson, 15109) // length(csv) of the row

		rs, err := client.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: "etcdoperator.v0.9.1"})
		require.NoError(t, err)
		entries, err := collect(rs.Recv)
		require.NoError(t, err)
		assert.Equal(t, []string{"etcd/alpha/etcdoperator.v0.9.2/etcdoperator.v0.9.1", "etcd/stable/etcdoperator.v0.9.2/etcdoperator.v0.9.1"}, entryKeys(entries))

		r, err := client.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: "etcdoperator.v0.6.1", PkgName: "etcd", ChannelName: "beta"})
		require.NoError(t, err)
		assert.Equal(t, "etcdoperator.v0.9.0", r.CsvName)

		ls, err := client.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{Group: "etcd.database.coreos.com", Version: "v1beta2", Kind: "EtcdCluster"})
		require.NoError(t, err)
		latest, err := collect(ls.Recv)
		require.NoError(t, err)
		assert.Equal(t, []string{"etcd/alpha/etcdoperator.v0.9.2/etcdoperator.v0.9.0", "etcd/beta/etcdoperator.v0.9.0/etcdoperator.v0.6.1", "etcd/stable/etcdoperator.v0.9.2/etcdoperator.v0.9.0"}, entryKeys(latest))

		d, err := client.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: "etcd.database.coreos.com", Version: "v1beta2", Kind: "EtcdCluster"})
		require.NoError(t, err)
		assert.Equal(t, "etcd/alpha/etcdoperator.v0.9.2", d.PackageName+"/"+d.ChannelName+"/"+d.CsvName)

		bs, err := client.ListBundles(ctx, &api.ListBundlesRequest{})
		require.NoError(t, err)
		all, err := collect(bs.Recv)
		require.NoError(t, err)
		assert.Len(t, all, 20) // distinct (bundle, package, channel) of real bundles
		byKey := map[string]*api.Bundle{}
		for _, b := range all {
			byKey[b.PackageName+"/"+b.ChannelName+"/"+b.CsvName] = b
		}
		head := byKey["etcd/alpha/etcdoperator.v0.9.2"]
		require.NotNil(t, head)
		assert.Equal(t, "etcdoperator.v0.9.0", head.Replaces)
		assert.Equal(t, []string{"etcdoperator.v0.9.1"}, head.Skips)
		assert.Empty(t, head.CsvJson, "image bundles stream no manifests")
		prom := byKey["prometheus/preview/prometheusoperator.0.22.2"]
		require.NotNil(t, prom)
		assert.Equal(t, "prometheusoperator.0.15.0", prom.Replaces)
		assert.NotEmpty(t, prom.CsvJson, "bundles without an image stream their manifests")
		assert.NotEmpty(t, prom.Object)
		tail := byKey["strimzi-kafka-operator/alpha/strimzi-cluster-operator.v0.11.0"]
		require.NotNil(t, tail)
		assert.Empty(t, tail.Replaces)
	})

	t.Run("level10 infrawatch-catalog", func(t *testing.T) {
		client, q := serve(t, filepath.Join(fixtures, "infrawatch-catalog", "index.db"))
		rs, err := q.Repairs(ctx)
		require.NoError(t, err)
		assert.NotEmpty(t, rs, "the cleared non-head manifests are repairs")

		p, err := client.GetPackage(ctx, &api.GetPackageRequest{Name: "smart-gateway-operator"})
		require.NoError(t, err)
		assert.Equal(t, "stable-1.1", p.DefaultChannelName)
		assert.Equal(t, map[string]string{"stable-1.1": "smart-gateway-operator.v2.1.0", "stable": "smart-gateway-operator.v2.1.0", "latest": "smart-gateway-operator.v2.0.1"}, channelHeads(p))

		// Non-head bundle whose csv and bundle columns are NULL.
		b, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: "service-telemetry-operator", ChannelName: "stable", CsvName: "service-telemetry-operator.v1.0.3"})
		require.NoError(t, err)
		assert.Empty(t, b.CsvJson)
		assert.Empty(t, b.Object)
		assert.Equal(t, "quay.io/infrawatch-operators/service-telemetry-operator-bundle:v1.0.3", b.BundlePath)
		assert.Equal(t, "1.0.3", b.Version)
		// Duplicate olm.package rows are served once (DISTINCT).
		assert.Equal(t, 1, countType(b.Properties, "olm.package"))

		fc, err := client.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: "smart-gateway-operator", ChannelName: "latest"})
		require.NoError(t, err)
		assert.Equal(t, "smart-gateway-operator.v2.0.1", fc.CsvName)
		assert.Len(t, fc.CsvJson, 11506)

		// The default channel's head provides ServiceTelemetry v1alpha1;
		// its required APIs (olm.gvk dependencies) carry the api table's plural.
		d, err := client.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: "infra.watch", Version: "v1alpha1", Kind: "ServiceTelemetry"})
		require.NoError(t, err)
		assert.Equal(t, "service-telemetry-operator/stable-1.1/service-telemetry-operator.v1.1.0", d.PackageName+"/"+d.ChannelName+"/"+d.CsvName)
		assert.NotEmpty(t, d.CsvJson)
		assert.ElementsMatch(t, []string{"infra.watch/v1alpha1/ServiceTelemetry/servicetelemetrys", "infra.watch/v1beta1/ServiceTelemetry/servicetelemetrys"}, gvks(d.ProvidedApis))
		assert.ElementsMatch(t, []string{
			"certmanager.k8s.io/v1alpha1/Certificate/certificates",
			"interconnectedcloud.github.io/v1alpha1/Interconnect/interconnects",
			"monitoring.coreos.com/v1/Prometheus/prometheuses",
			"smartgateway.infra.watch/v2alpha1/SmartGateway/smartgateways",
		}, gvks(d.RequiredApis))

		// Only smart-gateway-operator provides SmartGateway (the other
		// package requires it): one nearest provider per channel.
		ls, err := client.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{Group: "smartgateway.infra.watch", Version: "v2alpha1", Kind: "SmartGateway"})
		require.NoError(t, err)
		latest, err := collect(ls.Recv)
		require.NoError(t, err)
		assert.Equal(t, []string{
			"smart-gateway-operator/latest/smart-gateway-operator.v2.0.1/",
			"smart-gateway-operator/stable-1.1/smart-gateway-operator.v2.1.0/smart-gateway-operator.v2.0.1",
			"smart-gateway-operator/stable/smart-gateway-operator.v2.1.0/smart-gateway-operator.v2.0.1",
		}, entryKeys(latest))

		// The nearest ServiceTelemetry v1alpha1 provider of a non-default
		// channel may be a bundle without manifests; GetBundle still
		// answers, with empty csvJson.
		all1, err := client.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{Group: "infra.watch", Version: "v1alpha1", Kind: "ServiceTelemetry"})
		require.NoError(t, err)
		provs, err := collect(all1.Recv)
		require.NoError(t, err)
		assert.Equal(t, []string{
			"service-telemetry-operator/stable-1.1/service-telemetry-operator.v1.0.3/",
			"service-telemetry-operator/stable-1.1/service-telemetry-operator.v1.1.0/service-telemetry-operator.v1.0.3",
			"service-telemetry-operator/stable/service-telemetry-operator.v1.0.3/",
			"service-telemetry-operator/stable/service-telemetry-operator.v1.1.0/service-telemetry-operator.v1.0.3",
		}, entryKeys(provs))

		bs, err := client.ListBundles(ctx, &api.ListBundlesRequest{})
		require.NoError(t, err)
		all, err := collect(bs.Recv)
		require.NoError(t, err)
		assert.Len(t, all, 9)
		for _, b := range all {
			assert.Empty(t, b.CsvJson)
			if b.CsvName == "service-telemetry-operator.v1.1.0" {
				assert.Equal(t, "service-telemetry-operator.v1.0.3", b.Replaces)
				assert.Empty(t, b.Skips)
			}
		}
	})
}

func pkgNames(in []*api.PackageName) []string {
	var out []string
	for _, n := range in {
		out = append(out, n.Name)
	}
	sort.Strings(out)
	return out
}

func channelHeads(p *api.Package) map[string]string {
	out := map[string]string{}
	for _, c := range p.Channels {
		out[c.Name] = c.CsvName
	}
	return out
}

func gvks(in []*api.GroupVersionKind) []string {
	var out []string
	for _, g := range in {
		out = append(out, g.Group+"/"+g.Version+"/"+g.Kind+"/"+g.Plural)
	}
	return out
}

func entryKeys(in []*api.ChannelEntry) []string {
	var out []string
	for _, e := range in {
		out = append(out, e.PackageName+"/"+e.ChannelName+"/"+e.BundleName+"/"+e.Replaces)
	}
	sort.Strings(out)
	return out
}

func countType(props []*api.Property, typ string) int {
	n := 0
	for _, p := range props {
		if p.Type == typ {
			n++
		}
	}
	return n
}

// benchDB is the large database the benchmarks read: $OLMCAT_BENCH_DB,
// else /tmp/bench/index.db, where scripts/gen-bench-db.sh writes a
// 10,000-bundle index.
func benchDB(b *testing.B) string {
	b.Helper()
	return testinput.Path(b, "OLMCAT_BENCH_DB", "/tmp/bench/index.db", "run scripts/gen-bench-db.sh")
}

// BenchmarkNew measures start-up (legacy.Open + New) on the large
// database and reports the live heap the querier keeps (heapMiB: the
// reader's tables plus the index, manifests excluded; readerMiB: the
// part held by the opened legacy.DB alone).
func BenchmarkNew(b *testing.B) {
	path := benchDB(b)
	ctx := context.Background()
	base := heapInUse()
	var retained, afterOpen uint64
	var openTime, indexTime time.Duration
	for b.Loop() {
		start := time.Now()
		db, err := legacy.Open(ctx, path, legacy.Lazy(), legacy.SkipManifests())
		require.NoError(b, err)
		b.StopTimer()
		afterOpen = heapInUse() - base
		b.StartTimer()
		opened := time.Now()
		q, err := New(ctx, db)
		require.NoError(b, err)
		openTime += opened.Sub(start)
		indexTime += time.Since(opened)
		b.StopTimer()
		retained = heapInUse() - base
		require.NoError(b, q.Close())
		b.StartTimer()
	}
	b.ReportMetric(float64(retained)/(1<<20), "heapMiB")
	b.ReportMetric(float64(afterOpen)/(1<<20), "readerMiB")
	b.ReportMetric(openTime.Seconds()/float64(b.N), "open-s/op")
	b.ReportMetric(indexTime.Seconds()/float64(b.N), "index-s/op")
}

// BenchmarkListBundles streams every bundle of the large database over
// loopback gRPC, as OLM's catalog snapshot does.
func BenchmarkListBundles(b *testing.B) {
	client, _ := serve(b, benchDB(b))
	ctx := context.Background()
	n := 0
	for b.Loop() {
		s, err := client.ListBundles(ctx, &api.ListBundlesRequest{})
		require.NoError(b, err)
		got, err := collect(s.Recv)
		require.NoError(b, err)
		n = len(got)
	}
	b.ReportMetric(float64(n), "bundles")
}

// BenchmarkGetBundle answers GetBundle for a channel head of the large
// database (manifests read from the db per call) over loopback gRPC.
func BenchmarkGetBundle(b *testing.B) {
	client, q := serve(b, benchDB(b))
	ctx := context.Background()
	p, err := client.GetPackage(ctx, &api.GetPackageRequest{Name: q.packageNames[len(q.packageNames)/2]})
	require.NoError(b, err)
	req := &api.GetBundleRequest{PkgName: p.Name, ChannelName: p.Channels[0].Name, CsvName: p.Channels[0].CsvName}
	for b.Loop() {
		_, err := client.GetBundle(ctx, req)
		require.NoError(b, err)
	}
}

// heapInUse is the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestEveryFixtureServes serves all ten real databases and checks that
// the RPCs agree with each other: every ListBundles row is answerable by
// GetBundle with the same metadata, and every channel of every package
// has a head GetBundleForChannel can return.
func TestEveryFixtureServes(t *testing.T) {
	dirs, err := os.ReadDir(fixtures)
	require.NoError(t, err)
	want := map[string]int{ // ListBundles rows, counted with sqlite3
		"observability-operator": 10, // 12 bundles, 2 stranded: not listed
		"opreg-foo-index":        2,
		"opreg-indexer-bundles":  20,
		"infrawatch-catalog":     9,
	}
	ctx := context.Background()
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			client, _ := serve(t, filepath.Join(fixtures, d.Name(), "index.db"))
			s, err := client.ListPackages(ctx, &api.ListPackageRequest{})
			require.NoError(t, err)
			names, err := collect(s.Recv)
			require.NoError(t, err)
			require.NotEmpty(t, names)
			for _, n := range names {
				p, err := client.GetPackage(ctx, &api.GetPackageRequest{Name: n.Name})
				require.NoError(t, err)
				assert.Contains(t, channelHeads(p), p.DefaultChannelName)
				for _, c := range p.Channels {
					h, err := client.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: n.Name, ChannelName: c.Name})
					require.NoError(t, err)
					assert.Equal(t, c.CsvName, h.CsvName)
				}
			}
			bs, err := client.ListBundles(ctx, &api.ListBundlesRequest{})
			require.NoError(t, err)
			all, err := collect(bs.Recv)
			require.NoError(t, err)
			if n, ok := want[d.Name()]; ok {
				assert.Len(t, all, n)
			}
			for _, lb := range all {
				gb, err := client.GetBundle(ctx, &api.GetBundleRequest{PkgName: lb.PackageName, ChannelName: lb.ChannelName, CsvName: lb.CsvName})
				require.NoError(t, err)
				assert.Equal(t, lb.Version, gb.Version)
				assert.Equal(t, lb.BundlePath, gb.BundlePath)
				assert.Equal(t, lb.SkipRange, gb.SkipRange)
				assert.Empty(t, diff(lb.Properties, gb.Properties))
				assert.Empty(t, diff(lb.Dependencies, gb.Dependencies))
				if lb.CsvJson != "" {
					assert.Equal(t, lb.CsvJson, gb.CsvJson)
				}
			}
		})
	}
}

// TestSyntheticSkipEdges: skip targets absent from the database stay in
// skips (ListBundles) and still resolve as replaced names.
func TestSyntheticSkipEdges(t *testing.T) {
	client, _ := serve(t, filepath.Join(fixtures, "opreg-foo-index", "index.db"))
	ctx := context.Background()
	bs, err := client.ListBundles(ctx, &api.ListBundlesRequest{})
	require.NoError(t, err)
	all, err := collect(bs.Recv)
	require.NoError(t, err)
	require.Len(t, all, 2)
	head := all[1]
	require.Equal(t, "foo.v0.2.0", head.CsvName)
	assert.Equal(t, "foo.v0.1.0", head.Replaces)
	assert.ElementsMatch(t, []string{"foo.v0.1.1", "foo.v0.1.2"}, head.Skips)

	r, err := client.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: "foo.v0.1.2", PkgName: "foo", ChannelName: "beta"})
	require.NoError(t, err)
	assert.Equal(t, "foo.v0.2.0", r.CsvName)
	assert.Empty(t, r.Replaces, "only ListBundles fills replaces")
	assert.Empty(t, r.Skips)
}

// TestNewOptions: Close may be called twice; a cancelled context stops
// New with an error naming the file.
func TestNewOptions(t *testing.T) {
	path := filepath.Join(fixtures, "community-bundles", "index.db")
	ctx := context.Background()

	db, err := legacy.Open(ctx, path, legacy.Lazy(), legacy.SkipManifests())
	require.NoError(t, err)
	q, err := New(ctx, db)
	require.NoError(t, err)
	require.NoError(t, q.Close())
	require.NoError(t, q.Close(), "Close twice")

	db, err = legacy.Open(ctx, path, legacy.Lazy(), legacy.SkipManifests())
	require.NoError(t, err)
	defer db.Close()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = New(cctx, db)
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), path)
}

// TestAnswersBeforeReadingTheCatalog: New reads nothing; GetPackage reads
// that one package; the update graph is read on the first RPC that needs
// it, and every package only for the provider RPCs and plurals.
func TestAnswersBeforeReadingTheCatalog(t *testing.T) {
	client, q := serve(t, filepath.Join(fixtures, "opm-manifests", "index.db"))
	ctx := context.Background()
	require.True(t, q.db.IsLazy())
	cached := func() int {
		n := 0
		for _, name := range q.packageNames {
			if _, ok := q.pkgs.Get(name); ok {
				n++
			}
		}
		return n
	}
	assert.Equal(t, 0, cached())
	name := q.packageNames[len(q.packageNames)/2]
	p, err := client.GetPackage(ctx, &api.GetPackageRequest{Name: name})
	require.NoError(t, err)
	assert.Equal(t, 1, cached(), "only the package asked for is read")
	assert.Nil(t, q.graphVal, "no update graph for GetPackage")
	assert.Nil(t, q.factsVal)
	s, err := client.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: p.Channels[0].CsvName})
	require.NoError(t, err)
	if _, err := collect(s.Recv); err != nil {
		assert.Contains(t, err.Error(), "no channel entries found")
	}
	assert.NotNil(t, q.graphVal)
	assert.Nil(t, q.factsVal, "no package read for the graph")
	assert.Equal(t, 1, cached())
	_, err = client.GetBundle(ctx, &api.GetBundleRequest{PkgName: name, ChannelName: p.Channels[0].Name, CsvName: p.Channels[0].CsvName})
	require.NoError(t, err)
	assert.NotNil(t, q.factsVal, "plurals come from the catalog's api rows")
}

// TestRepairsOfEveryFixture: Repairs lists what an eager reader reports
// for the database and every package.
func TestRepairsOfEveryFixture(t *testing.T) {
	dirs, err := os.ReadDir(fixtures)
	require.NoError(t, err)
	ctx := context.Background()
	for _, d := range dirs {
		path := filepath.Join(fixtures, d.Name(), "index.db")
		db, err := legacy.Open(ctx, path, legacy.SkipManifests())
		require.NoError(t, err)
		want := db.Repairs()
		names, err := db.PackageNames(ctx)
		require.NoError(t, err)
		for _, n := range names {
			pd, err := db.ReadPackage(ctx, n)
			require.NoError(t, err)
			want = append(want, pd.Repairs...)
		}
		require.NoError(t, db.Close())
		_, q := serve(t, path)
		got, err := q.Repairs(ctx)
		require.NoError(t, err)
		assert.Equal(t, want, got, d.Name())
	}
}

// TestStoredFactsMatchPackageFacts: where the reader serves the api rows
// as stored, the facts read from those rows equal the facts read from
// every package, on every fixture and at every schema level.
func TestStoredFactsMatchPackageFacts(t *testing.T) {
	dirs, err := os.ReadDir(fixtures)
	require.NoError(t, err)
	ctx := context.Background()
	var paths []string
	for _, d := range dirs {
		paths = append(paths, filepath.Join(fixtures, d.Name(), "index.db"))
	}
	bs, err := dbbuild.ReadBundleDirs("../../fixtures/bundles/small-fbb", dbbuild.RegistryImage("127.0.0.1:5000/test/"))
	require.NoError(t, err)
	for level := dbbuild.MinLevel; level <= dbbuild.MaxLevel; level++ {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("level%d.db", level))
		require.NoError(t, dbbuild.Build(ctx, path, level, bs))
		paths = append(paths, path)
	}
	stored := 0
	for _, path := range paths {
		_, q := serve(t, path)
		ok, err := q.db.StoredAPIs(ctx)
		require.NoError(t, err)
		want, err := q.packageFacts(ctx)
		require.NoError(t, err, path)
		if !ok {
			continue
		}
		stored++
		got, err := q.storedFacts(ctx)
		require.NoError(t, err, path)
		assert.Equal(t, want, got, path)
	}
	assert.Greater(t, stored, len(paths)/2, "most databases serve their api rows as stored")
}

// TestKeptPackageInfoHoldsNoBundles: GetPackage keeps each package's
// channels for good in a copy, never a pointer into the package the LRU
// holds: such a pointer would keep the package's bundles alive after the
// LRU dropped it, and memory would grow with every package asked for.
func TestKeptPackageInfoHoldsNoBundles(t *testing.T) {
	ctx := context.Background()
	cat := catalogtest.MustGenerate(t, catalogtest.WithPackages(3), catalogtest.WithBundlesPerPackage(2))
	path := filepath.Join(t.TempDir(), "index.db")
	require.NoError(t, dbbuild.Build(ctx, path, dbbuild.MaxLevel, cat.DBBundles()))
	_, q := serve(t, path)
	names, err := q.db.PackageNames(ctx)
	require.NoError(t, err)
	require.Len(t, names, 3)
	for _, name := range names {
		p, err := q.GetPackage(ctx, name)
		require.NoError(t, err)
		require.NotEmpty(t, p.Channels, name)
		pd, ok := q.pkgs.Get(name)
		require.True(t, ok, "package %s read into the LRU", name)
		kept, ok := q.infos.Load(name)
		require.True(t, ok, "package %s info kept", name)
		assert.NotSame(t, &pd.info, kept.(*pkgInfo), "package %s: the kept info points into the LRU's package", name)
		assert.Equal(t, pd.info, *kept.(*pkgInfo), name)
	}
}

// TestGetBundleForChannelReadsCSVAlone: GetBundleForChannel serves the
// head's csv column as opm does, reading it alone: a bundle column that
// does not split fails GetBundle of that bundle, not GetBundleForChannel.
func TestGetBundleForChannelReadsCSVAlone(t *testing.T) {
	ctx := context.Background()
	cat := catalogtest.MustGenerate(t, catalogtest.WithPackages(1), catalogtest.WithBundlesPerPackage(2))
	path := filepath.Join(t.TempDir(), "index.db")
	require.NoError(t, dbbuild.Build(ctx, path, dbbuild.MaxLevel, cat.DBBundles()))
	var pkg, ch, head, csv string
	db, err := sql.Open("sqlite", path)
	require.NoError(t, err)
	require.NoError(t, db.QueryRow(`SELECT c.package_name, c.name, c.head_operatorbundle_name, b.csv FROM channel c JOIN operatorbundle b ON b.name = c.head_operatorbundle_name LIMIT 1`).Scan(&pkg, &ch, &head, &csv))
	require.NoError(t, db.Close())
	testinput.ExecSQL(t, path, `UPDATE operatorbundle SET bundle = '{"kind": ' WHERE name = '`+head+`'`)
	client, _ := serve(t, path)
	got, err := client.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: pkg, ChannelName: ch})
	require.NoError(t, err)
	assert.Equal(t, head, got.CsvName)
	assert.Equal(t, csv, got.CsvJson)
	_, err = client.GetBundle(ctx, &api.GetBundleRequest{PkgName: pkg, ChannelName: ch, CsvName: head})
	require.ErrorContains(t, err, "bundle column")
}

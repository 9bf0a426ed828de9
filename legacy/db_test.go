package legacy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

const fixtures = "../fixtures/legacy"

func fixture(name string) string { return filepath.Join(fixtures, name, "index.db") }

func fileSum(t testing.TB, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(data)
}

// readAll reads every package of the database.
func readAll(t testing.TB, db *DB) map[string]*PackageData {
	t.Helper()
	ctx := context.Background()
	names, err := db.PackageNames(ctx)
	require.NoError(t, err)
	out := map[string]*PackageData{}
	for _, n := range names {
		pd, err := db.ReadPackage(ctx, n)
		require.NoError(t, err, n)
		out[n] = pd
	}
	return out
}

func TestRealFixtures(t *testing.T) {
	tests := []struct {
		name                        string
		level                       int
		packages, channels, bundles int
		stranded                    int
	}{
		{"opreg-indexer-bundles", 5, 3, 7, 10, 0},
		{"observability-operator", 12, 1, 1, 10, 2},
		{"infrawatch-catalog", 10, 2, 5, 4, 0},
		{"opreg-foo-index", 12, 1, 1, 2, 0},
		{"small-fbb", 13, 3, 5, 10, 0},
		{"small-fbb-deprecated", 13, 3, 4, 9, 0},
		{"opm-manifests", 13, 3, 7, 10, 0},
		{"edge-before-substitutes", 13, 2, 5, 5, 0},
		{"edge-substitutes", 13, 2, 5, 7, 0},
		{"community-bundles", 13, 14, 25, 83, 0},
	}
	for _, tc := range tests {
		for _, skip := range []bool{false, true} {
			name := tc.name
			if skip {
				name += "/skip-manifests"
			}
			t.Run(name, func(t *testing.T) {
				path := fixture(tc.name)
				before := fileSum(t, path)
				var opts []Option
				if skip {
					opts = append(opts, SkipManifests())
				}
				db, err := Open(context.Background(), path, opts...)
				require.NoError(t, err)
				assert.Equal(t, tc.level, db.Level())
				assert.Equal(t, path, db.Path())
				all := readAll(t, db)
				names, err := db.PackageNames(context.Background())
				require.NoError(t, err)
				assert.True(t, sort.StringsAreSorted(names))
				assert.Len(t, names, tc.packages)
				channels, bundles, stranded := 0, 0, 0
				for _, pd := range all {
					channels += len(pd.Channels)
					bundles += len(pd.Bundles)
					stranded += len(pd.Stranded)
					assert.True(t, sort.SliceIsSorted(pd.Bundles, func(i, j int) bool { return pd.Bundles[i].Name < pd.Bundles[j].Name }))
					assert.True(t, sort.SliceIsSorted(pd.Entries, func(i, j int) bool { return pd.Entries[i].ID < pd.Entries[j].ID }))
					for _, b := range append(pd.Bundles, pd.Stranded...) {
						assert.NotEmpty(t, b.Version, b.Name)
						assert.Equal(t, 1, countType(b.Properties, "olm.package"), "%s: exactly one olm.package", b.Name)
						assertNoDupProps(t, b)
						if skip {
							assert.Nil(t, b.CSV, b.Name)
							assert.Nil(t, b.Objects, b.Name)
						} else if b.CSV != nil {
							assert.NotEmpty(t, b.Objects, b.Name)
						}
					}
				}
				assert.Equal(t, tc.channels, channels)
				assert.Equal(t, tc.bundles, bundles)
				assert.Equal(t, tc.stranded, stranded)
				require.NoError(t, db.Close())
				assert.Equal(t, before, fileSum(t, path), "file bytes changed")
			})
		}
	}
}

func countType(ps []Property, typ string) int {
	n := 0
	for _, p := range ps {
		if p.Type == typ {
			n++
		}
	}
	return n
}

func assertNoDupProps(t *testing.T, b Bundle) {
	t.Helper()
	seen := map[Property]bool{}
	for _, p := range b.Properties {
		assert.False(t, seen[p], "%s: duplicate property %v", b.Name, p)
		seen[p] = true
	}
	seenD := map[Dependency]bool{}
	for _, d := range b.Dependencies {
		assert.False(t, seenD[d], "%s: duplicate dependency %v", b.Name, d)
		seenD[d] = true
	}
}

func openFixture(t *testing.T, name string, opts ...Option) *DB {
	t.Helper()
	db, err := Open(context.Background(), fixture(name), opts...)
	require.NoError(t, err)
	t.Cleanup(func() { db.Close() })
	return db
}

func bundleByName(pd *PackageData, name string) *Bundle {
	for i := range pd.Bundles {
		if pd.Bundles[i].Name == name {
			return &pd.Bundles[i]
		}
	}
	for i := range pd.Stranded {
		if pd.Stranded[i].Name == name {
			return &pd.Stranded[i]
		}
	}
	return nil
}

func repairsOf(rs []Repair, kind RepairKind) []Repair {
	var out []Repair
	for _, r := range rs {
		if r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

func TestInfrawatchMissingManifests(t *testing.T) {
	db := openFixture(t, "infrawatch-catalog")
	assert.Empty(t, db.Repairs())
	pd, err := db.ReadPackage(context.Background(), "service-telemetry-operator")
	require.NoError(t, err)
	missing := repairsOf(pd.Repairs, RepairMissingManifests)
	require.Len(t, missing, 1)
	assert.Equal(t, "service-telemetry-operator.v1.0.3", missing[0].Bundle)
	assert.Equal(t, "service-telemetry-operator", missing[0].Package)
	assert.Equal(t, "operatorbundle", missing[0].Table)
	assert.Contains(t, missing[0].Detail, "non-head")
	assert.Len(t, pd.Repairs, 1, "%+v", pd.Repairs)

	b := bundleByName(pd, "service-telemetry-operator.v1.0.3")
	require.NotNil(t, b)
	assert.Nil(t, b.CSV)
	assert.Nil(t, b.Objects)
	assert.Equal(t, "quay.io/infrawatch-operators/service-telemetry-operator-bundle:v1.0.3", b.BundlePath)
	assert.Equal(t, "1.0.3", b.Version)
	// Duplicate olm.package rows collapse to one.
	assert.Equal(t, []Property{
		{Type: "olm.gvk", Value: `{"group":"infra.watch","kind":"ServiceTelemetry","version":"v1alpha1"}`},
		{Type: "olm.package", Value: `{"packageName":"service-telemetry-operator","version":"1.0.3"}`},
	}, b.Properties)
	assert.Len(t, b.Dependencies, 4)
	assert.Equal(t, []string{
		"quay.io/infrawatch-operators/service-telemetry-operator-bundle:v1.0.3",
		"quay.io/infrawatch/service-telemetry-operator:v1.0.3",
	}, b.RelatedImages)

	head := bundleByName(pd, "service-telemetry-operator.v1.1.0")
	require.NotNil(t, head)
	assert.NotNil(t, head.CSV)
	assert.Len(t, head.Objects, 2)
	assert.Equal(t, "service-telemetry-operator.v1.0.3", head.Replaces)
}

func TestObservabilityStranded(t *testing.T) {
	db := openFixture(t, "observability-operator")
	pd, err := db.ReadPackage(context.Background(), "observability-operator")
	require.NoError(t, err)
	require.Len(t, pd.Stranded, 2)
	assert.Equal(t, "observability-operator.v0.0.1", pd.Stranded[0].Name)
	assert.Equal(t, "observability-operator.v2.0.0", pd.Stranded[1].Name)
	for _, b := range pd.Stranded {
		assert.NotEmpty(t, b.Objects)
		assert.NotEmpty(t, b.BundlePath)
		assert.Nil(t, bundleByNameIn(pd.Bundles, b.Name))
	}
	assert.Equal(t, "0.0.1", pd.Stranded[0].Version)
	rs := repairsOf(pd.Repairs, RepairStranded)
	require.Len(t, rs, 2)
	assert.Equal(t, "observability-operator.v0.0.1", rs[0].Bundle)
	assert.Contains(t, rs[0].Detail, "olm.package property")
	assert.Len(t, pd.Bundles, 10)
	assert.Len(t, pd.Repairs, 2)
}

func bundleByNameIn(bs []Bundle, name string) *Bundle {
	for i := range bs {
		if bs[i].Name == name {
			return &bs[i]
		}
	}
	return nil
}

func TestLevel5Derivations(t *testing.T) {
	db := openFixture(t, "opreg-indexer-bundles")
	assert.Equal(t, 5, db.Level())
	assert.Empty(t, db.Repairs())
	all := readAll(t, db)
	etcd := all["etcd"]
	require.NotNil(t, etcd)
	assert.Equal(t, "alpha", etcd.Package.DefaultChannel)
	assert.Len(t, etcd.Entries, 12)

	b := bundleByName(etcd, "etcdoperator.v0.9.2")
	require.NotNil(t, b)
	assert.Equal(t, "0.9.2", b.Version)
	assert.Equal(t, "< 0.6.0", b.SkipRange)
	assert.Equal(t, "etcdoperator.v0.9.0", b.Replaces)
	assert.Equal(t, []string{"etcdoperator.v0.9.1"}, b.Skips)
	assert.Equal(t, "quay.io/olmtest/example-bundle:etcdoperator.v0.9.2", b.BundlePath)
	assert.Equal(t, []Property{
		{Type: "olm.package", Value: `{"packageName":"etcd","version":"0.9.2"}`},
		{Type: "olm.gvk", Value: `{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}`},
		{Type: "olm.gvk", Value: `{"group":"etcd.database.coreos.com","kind":"EtcdBackup","version":"v1beta2"}`},
		{Type: "olm.gvk", Value: `{"group":"etcd.database.coreos.com","kind":"EtcdRestore","version":"v1beta2"}`},
	}, b.Properties)
	assert.Equal(t, []Dependency{
		{Type: "olm.gvk", Value: `{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}`},
	}, b.Dependencies)
	assert.Equal(t, []API{{GVK: manifest.GVK{Group: "etcd.database.coreos.com", Version: "v1beta2", Kind: "EtcdCluster"}, Plural: "etcdclusters"}}, b.RequiredAPIs)
	assert.Len(t, b.RelatedImages, 3)
	assert.Len(t, b.Objects, 4)

	// api_provider at level 5 is keyed by channel_entry_id: 0.6.1's entries
	// provide only EtcdCluster.
	old := bundleByName(etcd, "etcdoperator.v0.6.1")
	require.NotNil(t, old)
	assert.Equal(t, []Property{
		{Type: "olm.package", Value: `{"packageName":"etcd","version":"0.6.1"}`},
		{Type: "olm.gvk", Value: `{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}`},
	}, old.Properties)
	assert.Empty(t, old.Replaces)
	assert.Nil(t, old.Skips)
	assert.Nil(t, old.Dependencies)

	prom := bundleByName(all["prometheus"], "prometheusoperator.0.22.2")
	require.NotNil(t, prom)
	assert.Equal(t, "", prom.BundlePath)
	assert.Equal(t, "prometheusoperator.0.15.0", prom.Replaces)

	for name, pd := range all {
		d := repairsOf(pd.Repairs, RepairDerived)
		require.Len(t, d, 1, name)
		assert.Contains(t, d[0].Detail, "properties")
		assert.Contains(t, d[0].Detail, "dependencies")
		assert.Contains(t, d[0].Detail, "replaces/skips")
		assert.Len(t, pd.Repairs, 1, name)
	}
}

func TestDeprecatedBundle(t *testing.T) {
	db := openFixture(t, "small-fbb-deprecated")
	pd, err := db.ReadPackage(context.Background(), "foo")
	require.NoError(t, err)
	for _, b := range pd.Bundles {
		assert.Equal(t, b.Name == "foo.v0.2.0", b.Deprecated, b.Name)
	}
	b := bundleByName(pd, "foo.v0.2.0")
	require.NotNil(t, b)
	assert.Equal(t, 1, countType(b.Properties, "olm.deprecated"))
	require.Len(t, pd.Repairs, 1)
	assert.Equal(t, RepairMissingManifests, pd.Repairs[0].Kind)
	assert.Equal(t, "foo.v0.3.0", pd.Repairs[0].Bundle)

	// The same bundle before deprecatetruncate is not deprecated.
	db2 := openFixture(t, "small-fbb")
	pd2, err := db2.ReadPackage(context.Background(), "foo")
	require.NoError(t, err)
	for _, b := range pd2.Bundles {
		assert.False(t, b.Deprecated, b.Name)
	}
}

func TestSmallFBBDependencies(t *testing.T) {
	db := openFixture(t, "small-fbb")
	pd, err := db.ReadPackage(context.Background(), "foo")
	require.NoError(t, err)
	b := bundleByName(pd, "foo.v0.2.0")
	require.NotNil(t, b)
	assert.Equal(t, []Dependency{
		{Type: "olm.package", Value: `{"packageName":"bar","version":"\u003c0.1.0"}`},
		{Type: "olm.gvk", Value: `{"group":"test.bar","kind":"Bar","version":"v1alpha1"}`},
	}, b.Dependencies)
	assert.Equal(t, []string{"foo.v0.1.1", "foo.v0.1.2"}, b.Skips)
	assert.Equal(t, "foo.v0.1.0", b.Replaces)
	assert.Equal(t, "<0.2.0", b.SkipRange)
}

func TestOpmManifestsNullPropertyPath(t *testing.T) {
	db := openFixture(t, "opm-manifests")
	pd, err := db.ReadPackage(context.Background(), "etcd")
	require.NoError(t, err)
	rs := repairsOf(pd.Repairs, RepairNullPropertyPath)
	require.Len(t, rs, 1)
	assert.Contains(t, rs[0].Detail, "3 bundle(s)")
	b := bundleByName(pd, "etcdoperator.v0.9.2")
	require.NotNil(t, b)
	assert.Equal(t, "", b.BundlePath)
	assert.NotEmpty(t, b.Properties)
}

func TestBundleManifests(t *testing.T) {
	db := openFixture(t, "infrawatch-catalog", SkipManifests())
	ctx := context.Background()
	csv, objs, err := db.BundleManifests(ctx, "service-telemetry-operator.v1.1.0")
	require.NoError(t, err)
	require.NotNil(t, csv)
	require.Len(t, objs, 2)
	for _, o := range objs {
		assert.True(t, json.Valid(o))
	}
	csv, objs, err = db.BundleManifests(ctx, "service-telemetry-operator.v1.0.3")
	require.NoError(t, err)
	assert.Nil(t, csv)
	assert.Nil(t, objs)
	_, _, err = db.BundleManifests(ctx, "nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"nope"`)
	assert.Contains(t, err.Error(), "infrawatch-catalog")
}

func TestReadPackageUnknown(t *testing.T) {
	db := openFixture(t, "small-fbb")
	_, err := db.ReadPackage(context.Background(), "nope")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"nope"`)
	assert.Contains(t, err.Error(), "small-fbb")
}

func TestConcurrentReadPackage(t *testing.T) {
	db := openFixture(t, "community-bundles")
	ctx := context.Background()
	names, err := db.PackageNames(ctx)
	require.NoError(t, err)
	want := readAll(t, db)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := range names {
				n := names[(i+w)%len(names)]
				pd, err := db.ReadPackage(ctx, n)
				if err != nil {
					errs <- err
					return
				}
				if len(pd.Bundles) != len(want[n].Bundles) {
					errs <- assert.AnError
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

func TestSplitObjects(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
		err  bool
	}{
		{"newline separated", "{\"a\":1}\n{\"b\":[1,2]}\n", []string{`{"a":1}`, `{"b":[1,2]}`}, false},
		{"unseparated", `{"a":1}{"b":"x\ny"}`, []string{`{"a":1}`, `{"b":"x\ny"}`}, false},
		{"empty", "", nil, false},
		{"blank", " \n", nil, false},
		{"broken", `{"a":1}{"b":`, nil, true},
		{"escaped quotes and braces in strings", `{"a":"x\"}{"}` + "\n" + `{"b":"\\"}`, []string{`{"a":"x\"}{"}`, `{"b":"\\"}`}, false},
		{"arrays and nesting", `[1,{"a":[{}]}] {"z":{"y":{}}}`, []string{`[1,{"a":[{}]}]`, `{"z":{"y":{}}}`}, false},
		{"unterminated string", `{"a":"x}`, nil, true},
		{"scalar at top level", `{"a":1} 42`, nil, true},
		{"unbalanced", `{"a":1}}`, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SplitObjects([]byte(tc.in))
			if tc.err {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			var s []string
			for _, g := range got {
				s = append(s, string(g))
			}
			assert.Equal(t, tc.want, s)
		})
	}
}

// FuzzSplitObjects checks the fast scanner against encoding/json: whenever
// a json.Decoder splits the input cleanly into objects/arrays, SplitObjects
// returns exactly the same documents.
func FuzzSplitObjects(f *testing.F) {
	for _, seed := range []string{
		"{\"a\":1}\n{\"b\":[1,2]}\n", `{"a":"x\"}"}{"b":"\\"}`, `[{"a":"\u0022"}]`, `{"a":"}"`, `{}{}[]`, "  ", `{"a":1}]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := SplitObjects(data)
		dec := json.NewDecoder(bytes.NewReader(data))
		var want [][]byte
		for {
			var raw json.RawMessage
			if e := dec.Decode(&raw); e != nil {
				if e != io.EOF {
					return // invalid JSON: the scanner may split or refuse it
				}
				break
			}
			if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
				return
			}
			want = append(want, raw)
		}
		require.NoError(t, err)
		require.Len(t, got, len(want))
		for i := range want {
			assert.Equal(t, string(want[i]), string(got[i]))
		}
	})
}

// Callers may edit what ReadPackage returns without affecting later reads.
func TestReadPackageReturnsCopies(t *testing.T) {
	db := openFixture(t, "infrawatch-catalog")
	ctx := context.Background()
	first, err := db.ReadPackage(ctx, "service-telemetry-operator")
	require.NoError(t, err)
	want, err := db.ReadPackage(ctx, "service-telemetry-operator")
	require.NoError(t, err)
	for i := range first.Bundles {
		b := &first.Bundles[i]
		for j := range b.RelatedImages {
			b.RelatedImages[j] = "edited"
		}
		for j := range b.ProvidedAPIs {
			b.ProvidedAPIs[j].Kind = "edited"
		}
		for j := range b.RequiredAPIs {
			b.RequiredAPIs[j].Kind = "edited"
		}
		for j := range b.Properties {
			b.Properties[j].Value = "edited"
		}
		for j := range b.Dependencies {
			b.Dependencies[j].Value = "edited"
		}
	}
	first.Entries[0].Bundle = "edited"
	first.Channels[0].Head = "edited"
	again, err := db.ReadPackage(ctx, "service-telemetry-operator")
	require.NoError(t, err)
	assert.Equal(t, want, again)
}

// The connection refuses writes: immutable, mode=ro and query_only.
func TestConnectionIsReadOnly(t *testing.T) {
	db := openFixture(t, "opreg-foo-index")
	_, err := db.db.Exec(`CREATE TABLE x(y)`)
	require.Error(t, err)
	var qo int
	require.NoError(t, db.db.Get(&qo, `PRAGMA query_only`))
	assert.Equal(t, 1, qo)
}

func TestCancelledContext(t *testing.T) {
	db := openFixture(t, "small-fbb")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := db.ReadPackage(ctx, "foo")
	require.ErrorIs(t, err, context.Canceled)
	_, err = db.PackageNames(ctx)
	require.ErrorIs(t, err, context.Canceled)
	_, err = Open(ctx, fixture("small-fbb"))
	require.ErrorIs(t, err, context.Canceled)
}

// TestPageCache: PageCache sets each connection's page cache; without it
// the connections keep sqlite's default.
func TestPageCache(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		opts []Option
		want int
	}{{want: -2000}, {opts: []Option{PageCache(512)}, want: -512}} {
		db, err := Open(ctx, fixture("small-fbb"), tc.opts...)
		require.NoError(t, err)
		var n int
		require.NoError(t, db.db.GetContext(ctx, &n, "PRAGMA cache_size"))
		require.Equal(t, tc.want, n)
		require.NoError(t, db.Close())
	}
}

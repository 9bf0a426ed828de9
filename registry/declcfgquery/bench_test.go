package declcfgquery_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// genCatalog writes a synthetic catalog of about n bundles into dir in the
// opm layout (<pkg>/catalog.json): packages of 12 bundles each, two
// channels (stable holds every bundle, fast the newer half), each bundle
// with realistic properties and inline olm.bundle.object data (a CSV with
// a long description and a CRD with a schema): ~17 KiB of catalog per
// bundle, the average of the real community-bundles migration.
func genCatalog(tb testing.TB, dir string, n int) {
	tb.Helper()
	const perPkg = 12
	description := strings.Repeat("This operator manages the lifecycle of a cool database: install, upgrade, backup & restore. ", 50)
	schema := strings.Repeat(`"field%d":{"type":"string","description":"a configurable field of the spec"},`, 1)
	for p := 0; p*perPkg < n; p++ {
		pkg := fmt.Sprintf("operator-%04d", p)
		cfg := &declcfg.DeclarativeConfig{}
		cfg.Packages = append(cfg.Packages, declcfg.Package{Schema: declcfg.SchemaPackage, Name: pkg, DefaultChannel: "stable", Description: "pkg " + pkg})
		stable := declcfg.Channel{Schema: declcfg.SchemaChannel, Package: pkg, Name: "stable"}
		fast := declcfg.Channel{Schema: declcfg.SchemaChannel, Package: pkg, Name: "fast"}
		count := min(perPkg, n-p*perPkg)
		for i := range count {
			name := fmt.Sprintf("%s.v1.%d.0", pkg, i)
			e := declcfg.ChannelEntry{Name: name}
			if i > 0 {
				e.Replaces = fmt.Sprintf("%s.v1.%d.0", pkg, i-1)
				e.SkipRange = fmt.Sprintf("<1.%d.0", i)
			}
			stable.Entries = append(stable.Entries, e)
			if i >= count/2 {
				fe := e
				if i == count/2 {
					fe.Replaces = ""
				}
				fast.Entries = append(fast.Entries, fe)
			}
			var fields strings.Builder
			for f := range 60 {
				fmt.Fprintf(&fields, schema, f)
			}
			crd := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"dbs%d.example.com"},"spec":{"group":"example.com","names":{"kind":"DB%d","plural":"dbs%d"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{%s"x":{"type":"string"}}}}}]}}`, p, p, p, fields.String())
			csv := fmt.Sprintf(`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":%q,"annotations":{"capabilities":"Full Lifecycle","containerImage":"example.com/op:%d"}},"spec":{"displayName":"Operator %d","description":%q,"version":"1.%d.0","install":{"strategy":"deployment","spec":{"deployments":[{"name":"op","spec":{"replicas":1}}]}},"customresourcedefinitions":{"owned":[{"name":"dbs%d.example.com","version":"v1","kind":"DB%d"}]}}}`, name, i, p, description, i, p, p)
			cfg.Bundles = append(cfg.Bundles, declcfg.Bundle{
				Schema:  declcfg.SchemaBundle,
				Package: pkg,
				Name:    name,
				Image:   fmt.Sprintf("example.com/%s-bundle:v1.%d.0", pkg, i),
				Properties: []declcfg.Property{
					declcfg.MustProperty(declcfg.PropertyPackage, declcfg.PackageValue{PackageName: pkg, Version: fmt.Sprintf("1.%d.0", i)}),
					declcfg.MustProperty(declcfg.PropertyGVK, declcfg.GVKValue{Group: "example.com", Version: "v1", Kind: fmt.Sprintf("DB%d", p)}),
					declcfg.MustProperty(declcfg.PropertyGVKRequired, declcfg.GVKValue{Group: "core.example.com", Version: "v1", Kind: "Base"}),
					declcfg.MustProperty(declcfg.PropertyBundleObject, declcfg.BundleObjectValue{Data: []byte(crd)}),
					declcfg.MustProperty(declcfg.PropertyBundleObject, declcfg.BundleObjectValue{Data: []byte(csv)}),
				},
				RelatedImages: []declcfg.RelatedImage{{Name: "operator", Image: fmt.Sprintf("example.com/op:%d", i)}},
			})
		}
		cfg.Channels = append(cfg.Channels, stable, fast)
		if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
			tb.Fatal(err)
		}
		f, err := os.Create(filepath.Join(dir, pkg, "catalog.json"))
		if err != nil {
			tb.Fatal(err)
		}
		if err := declcfg.WriteJSON(f, cfg); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
}

// retainedHeap is the live heap after a full GC, in MiB.
func retainedHeap() float64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return float64(ms.HeapAlloc) / (1 << 20)
}

func benchLoad(b *testing.B, bundles int, cached bool) {
	dir := b.TempDir()
	genCatalog(b, dir, bundles)
	var size int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, _ error) error {
		if info, err := d.Info(); err == nil && !d.IsDir() {
			size += info.Size()
		}
		return nil
	})
	var opts []declcfgquery.Option
	if cached {
		cache := b.TempDir()
		opts = append(opts, declcfgquery.WithCacheDir(cache))
		q, err := declcfgquery.Load(context.Background(), dir, opts...)
		if err != nil {
			b.Fatal(err)
		}
		if !q.Stats().CacheWritten {
			b.Fatalf("cache not written: %s", q.Stats().CacheError)
		}
	}
	base := retainedHeap()
	b.ResetTimer()
	var q *declcfgquery.Querier
	for b.Loop() {
		var err error
		if q, err = declcfgquery.Load(context.Background(), dir, opts...); err != nil {
			b.Fatal(err)
		}
		if q.Stats().FromCache != cached {
			b.Fatalf("FromCache = %v, want %v (%s)", q.Stats().FromCache, cached, q.Stats().CacheError)
		}
	}
	b.StopTimer()
	b.ReportMetric(retainedHeap()-base, "retained-MiB")
	b.ReportMetric(float64(q.Stats().Bundles), "channel-bundles")
	b.ReportMetric(float64(size)/(1<<20), "catalog-MiB")
	runtime.KeepAlive(q)
}

// BenchmarkColdStart764 is the size at which `opm serve` took 8.1 s to
// become healthy: load, validate, model and prepare every answer.
func BenchmarkColdStart764(b *testing.B) { benchLoad(b, 764, false) }

// BenchmarkColdStart10k is a large catalog, built from the files.
func BenchmarkColdStart10k(b *testing.B) { benchLoad(b, 10000, false) }

// BenchmarkWarmStart764 restores the 764-bundle catalog from its cache.
func BenchmarkWarmStart764(b *testing.B) { benchLoad(b, 764, true) }

// BenchmarkWarmStart10k restores the 10,000-bundle catalog from its cache.
func BenchmarkWarmStart10k(b *testing.B) { benchLoad(b, 10000, true) }

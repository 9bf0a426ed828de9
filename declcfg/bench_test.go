package declcfg

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// genCatalog builds a catalog of pkgs packages with perPkg bundles each,
// in two channels (stable: every bundle, one replaces chain with a skip
// per bundle; fast: the newest half), with the properties opm migrate
// writes and one small inline object per bundle.
func genCatalog(pkgs, perPkg int) *DeclarativeConfig {
	cfg := &DeclarativeConfig{}
	for p := 0; p < pkgs; p++ {
		pkg := fmt.Sprintf("operator-%03d", p)
		cfg.Packages = append(cfg.Packages, Package{Schema: SchemaPackage, Name: pkg, DefaultChannel: "stable",
			Icon: &Icon{Data: []byte("<svg xmlns='http://www.w3.org/2000/svg'/>"), MediaType: "image/svg+xml"}})
		stable := Channel{Schema: SchemaChannel, Name: "stable", Package: pkg}
		fast := Channel{Schema: SchemaChannel, Name: "fast", Package: pkg}
		for i := 0; i < perPkg; i++ {
			name := fmt.Sprintf("%s.v1.%d.0", pkg, i)
			e := ChannelEntry{Name: name, SkipRange: fmt.Sprintf("<1.%d.0", i)}
			if i > 0 {
				e.Replaces = fmt.Sprintf("%s.v1.%d.0", pkg, i-1)
			}
			if i > 1 {
				e.Skips = []string{fmt.Sprintf("%s.v1.%d.0-rc", pkg, i-1)}
			}
			stable.Entries = append(stable.Entries, e)
			if i >= perPkg/2 {
				fe := e
				if i == perPkg/2 {
					fe.Replaces = ""
				}
				fast.Entries = append(fast.Entries, fe)
			}
			obj := fmt.Sprintf(`{"apiVersion":"v1","data":{"config.yaml":"replicas: 1\nlogLevel: info\n"},"kind":"ConfigMap","metadata":{"labels":{"app":%q},"name":"%s-config"}}`, pkg, name)
			cfg.Bundles = append(cfg.Bundles, Bundle{
				Schema: SchemaBundle, Name: name, Package: pkg,
				Image: fmt.Sprintf("quay.io/example/%s-bundle@sha256:%064x", pkg, p*1000+i),
				Properties: []Property{
					MustProperty(PropertyGVK, GVKValue{Group: pkg + ".example.com", Kind: "Widget", Version: "v1"}),
					MustProperty(PropertyGVK, GVKValue{Group: pkg + ".example.com", Kind: "Gadget", Version: "v1beta1"}),
					MustProperty(PropertyGVKRequired, GVKValue{Group: "monitoring.coreos.com", Kind: "ServiceMonitor", Version: "v1"}),
					MustProperty(PropertyLabel, LabelValue{Label: "tier=backend"}),
					MustProperty(PropertyPackage, PackageValue{PackageName: pkg, Version: fmt.Sprintf("1.%d.0", i)}),
					MustProperty(PropertyPackageRequired, PackageRequiredValue{PackageName: "cert-manager", VersionRange: ">=1.0.0"}),
					MustProperty(PropertyBundleObject, BundleObjectValue{Data: []byte(obj)}),
				},
				RelatedImages: []RelatedImage{
					{Name: "operator", Image: fmt.Sprintf("quay.io/example/%s@sha256:%064x", pkg, p*1000+i)},
					{Name: "", Image: fmt.Sprintf("quay.io/example/%s-bundle@sha256:%064x", pkg, p*1000+i)},
				},
			})
		}
		cfg.Channels = append(cfg.Channels, stable, fast)
	}
	return cfg
}

func dirSize(b *testing.B, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err == nil {
			n += info.Size()
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// BenchmarkLoadValidate10k loads and validates a 10,000-bundle catalog
// (400 packages x 25 bundles, opm layout) per iteration.
func BenchmarkLoadValidate10k(b *testing.B) {
	dir := benchLoadValidate(b, genCatalog(400, 25))
	b.ReportMetric(float64(retainedHeap(b, dir))/1e6, "live-MB")
}

// benchLoadValidate writes cfg (10,000 bundles in 400 packages) once in the
// opm layout, then loads and links it per iteration. It returns the
// catalog directory.
func benchLoadValidate(b *testing.B, cfg *DeclarativeConfig) string {
	dir := filepath.Join(b.TempDir(), "catalog")
	if err := WriteDir(cfg, dir); err != nil {
		b.Fatal(err)
	}
	size := dirSize(b, dir)
	ctx := context.Background()
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		cfg, err := LoadDir(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		m, n, err := toModel(cfg)
		if err != nil {
			b.Fatal(err)
		}
		_ = m
		if len(cfg.Bundles) != 10000 || n != 400 {
			b.Fatalf("loaded %d bundles, %d packages", len(cfg.Bundles), n)
		}
	}
	reportCPU(b, start)
	b.ReportMetric(float64(size)/1e6, "catalog-MB")
	return dir
}

// retainedHeap measures the heap that a loaded and linked catalog keeps
// alive (config plus model), after garbage collection.
func retainedHeap(b *testing.B, dir string) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cfg, err := LoadDir(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	m, _, err := toModel(cfg)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(cfg)
	runtime.KeepAlive(m)
	if after.HeapAlloc < before.HeapAlloc {
		return 0
	}
	return after.HeapAlloc - before.HeapAlloc
}

// TestGeneratedCatalogValid keeps the benchmark's catalog honest: it must
// be valid and survive both layouts.
func TestGeneratedCatalogValid(t *testing.T) {
	cfg := genCatalog(3, 6)
	dir := filepath.Join(t.TempDir(), "catalog")
	if err := WriteDir(cfg, dir); err != nil {
		t.Fatal(err)
	}
	loaded, err := LoadDir(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := toModel(loaded); err != nil {
		t.Fatal(err)
	}
}

// Package catalogtest generates synthetic declarative config catalogs of
// any size for the registry packages' benchmarks and load tests.
package catalogtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Option configures Generate.
type Option func(*options)

type options struct {
	image bool
}

// WithoutImages leaves every bundle's image empty, so the registry serves
// the bundles' manifests inline (ListBundles then streams csvJson and
// objects, large messages).
func WithoutImages() Option { return func(o *options) { o.image = false } }

func image(o options, pkg string, i int) string {
	if !o.image {
		return ""
	}
	return fmt.Sprintf("example.com/%s-bundle:v1.%d.0", pkg, i)
}

// Generate writes a synthetic catalog of about n bundles into dir in the
// opm layout (<pkg>/catalog.json): packages of 12 bundles each, two
// channels (stable holds every bundle, fast the newer half), each bundle
// with realistic properties and inline olm.bundle.object data (a CSV with
// a long description and a CRD with a schema): ~14 KiB of catalog per
// bundle, near the average of the real community-bundles migration.
func Generate(dir string, n int, opts ...Option) error {
	o := options{image: true}
	for _, opt := range opts {
		opt(&o)
	}
	const perPkg = 12
	description := strings.Repeat("This operator manages the lifecycle of a cool database: install, upgrade, backup & restore. ", 50)
	const schema = `"field%d":{"type":"string","description":"a configurable field of the spec"},`
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
				Image:   image(o, pkg, i),
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
		if err := writePackage(dir, pkg, cfg); err != nil {
			return err
		}
	}
	return nil
}

func writePackage(dir, pkg string, cfg *declcfg.DeclarativeConfig) error {
	if err := os.MkdirAll(filepath.Join(dir, pkg), 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, pkg, "catalog.json"))
	if err != nil {
		return err
	}
	if err := declcfg.WriteJSON(f, cfg); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", pkg, err)
	}
	return f.Close()
}

package indexop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/declcfg"
)

// ExportPackage writes package pkg (its blobs, cfg) in opm v1.73's
// appregistry layout, as its index export did, into dir: one folder per
// bundle, named for its version (its name when it has none or shares
// it), then package.yaml. copyManifests fills the folder of a bundle
// with an image (the manifests/ files of the image); a bundle without
// image gets its objects from the catalog, one file each. Up to 10
// bundles are exported at once. It returns how many were.
func ExportPackage(ctx context.Context, dir, pkg string, cfg *declcfg.DeclarativeConfig,
	copyManifests func(ctx context.Context, image, dest string) error) (int, error) {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(10)
	var exported atomic.Int64
	used := map[string]bool{}
	for i := range cfg.Bundles {
		b := &cfg.Bundles[i]
		folder := bundleVersionString(b)
		if folder == "" || used[folder] {
			folder = b.Name
		}
		used[folder] = true
		dest := filepath.Join(dir, folder)
		g.Go(func() error {
			err := os.MkdirAll(dest, 0o755)
			switch {
			case err != nil:
			case b.Image == "":
				err = writeObjects(b, dest)
			default:
				err = copyManifests(gctx, b.Image, dest)
			}
			if err != nil {
				return fmt.Errorf("exporting bundle %s (%s) of package %s: %w", b.Name, b.Image, pkg, err)
			}
			exported.Add(1)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return int(exported.Load()), err
	}
	return int(exported.Load()), os.WriteFile(filepath.Join(dir, "package.yaml"), packageYAML(pkg, cfg), 0o644)
}

// writeObjects writes each object of b as <kind>-<name>.yaml.
func writeObjects(b *declcfg.Bundle, dest string) error {
	if len(b.Objects) == 0 {
		return errors.New("no image and no objects in the catalog")
	}
	used := map[string]bool{}
	for _, obj := range b.Objects {
		var meta struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		_ = yaml.Unmarshal([]byte(obj), &meta)
		base := strings.ToLower(meta.Kind) + "-" + meta.Metadata.Name
		name := base + ".yaml"
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s-%d.yaml", base, i)
		}
		used[name] = true
		y, err := yaml.JSONToYAML([]byte(obj))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dest, name), y, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// packageYAML is opm's package.yaml: packageName, channels (by name, with
// their heads), defaultChannel, 4-space indent.
func packageYAML(pkg string, cfg *declcfg.DeclarativeConfig) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "packageName: %s\n", yamlScalar(pkg))
	chans := slices.Clone(cfg.Channels)
	slices.SortFunc(chans, func(a, b declcfg.Channel) int { return strings.Compare(a.Name, b.Name) })
	if len(chans) == 0 {
		b.WriteString("channels: []\n")
	} else {
		b.WriteString("channels:\n")
	}
	for _, ch := range chans {
		fmt.Fprintf(&b, "    - name: %s\n      currentCSV: %s\n", yamlScalar(ch.Name), yamlScalar(ChannelHead(ch)))
	}
	def := ""
	for _, p := range cfg.Packages {
		def = p.DefaultChannel
	}
	fmt.Fprintf(&b, "defaultChannel: %s\n", yamlScalar(def))
	return []byte(b.String())
}

// yamlScalar writes s as YAML would: plain when it reads back as the
// same string, else double-quoted.
func yamlScalar(s string) string {
	var back string
	if s != "" && yaml.Unmarshal([]byte(s), &back) == nil && back == s && !strings.ContainsAny(s, ":#\n") {
		return s
	}
	out, _ := yaml.Marshal(s)
	return strings.TrimSuffix(string(out), "\n")
}

// bundleVersionString is the version of the bundle's olm.package
// property ("" if none): the first that has one, as the folder needs a
// name (a bundle with several olm.package properties, which opm's model
// refuses, is exported as it is).
func bundleVersionString(b *declcfg.Bundle) string {
	for v, err := range declcfg.PackageValues(b.Properties) {
		if err == nil && v.Version != "" {
			return v.Version
		}
	}
	return ""
}

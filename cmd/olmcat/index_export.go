//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/input"
)

func newIndexExportCmd(img *imageFlags) *cobra.Command {
	var (
		index, folder string
		packages, old []string
		force         bool
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export the manifests of packages of an index in the appregistry layout",
		Long: `Export writes opm v1.73's appregistry layout of packages of an index (a
sqlite or declarative config image, an index.db or a catalog directory):
<folder>/<package>/package.yaml and one folder per bundle version holding
the manifests/ files of the bundle's image (up to 10 pulled at once); a
bundle without an image gets its objects from the catalog, one file each.
Nothing is written unless every bundle was exported. Deprecated: see the
notice for the FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
	}
	fl := cmd.Flags()
	fl.StringVarP(&index, "index", "i", "", "index to get package from")
	_ = cmd.MarkFlagRequired("index")
	fl.StringSliceVarP(&packages, "package", "p", nil, "the package(s) to export (default: all)")
	fl.StringSliceVarP(&old, "xpackage", "o", nil, "the package(s) to export")
	_ = fl.MarkDeprecated("xpackage", "use -p/--package instead")
	fl.StringVarP(&folder, "download-folder", "f", "downloaded", "directory where downloaded operator bundle(s) will be stored")
	fl.BoolVar(&force, "force", false, "replace an existing non-empty download folder")
	addDaemonToolFlag(fl, "container-tool", "c", "none", "tool to interact with container images (save, build, etc.). One of: [none, docker, podman]")
	fl.Bool("debug", false, "enable debug logging")
	_ = fl.MarkHidden("debug")
	takesImages(cmd, imageInputFlags)
	notice := addOPMNoticeFlag(fl)
	waitLock := addWaitLockFlag(fl)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		notice.print(cmd, "olmcat unpack "+shellQuote(index)+" catalog --layout objects"+imageFlagArgs(cmd.Flags()))
		if len(packages) > 0 && len(old) > 0 {
			return usageError(errors.New("cannot simultaneously set '-p' and '-o' flags, remove '-o'"))
		}
		noteDaemonTools(fl, cmd.ErrOrStderr())
		lock, err := waitLock.lock(cmd, folder, index)
		if err != nil {
			return err
		}
		defer lock.Release()
		ctx := cmd.Context()
		src, err := openIndexSource(ctx, index, img, false, cmd.ErrOrStderr())
		if err != nil {
			return err
		}
		defer src.Close()
		e := &exporter{img: img, stderr: cmd.ErrOrStderr(), want: packageList(append(packages, old...))}
		w, err := declcfg.NewDirWriter(folder, declcfg.WithInputs(src.inputs()...), declcfg.WithForce(force))
		if err != nil {
			return err
		}
		defer w.Abort()
		if err := e.export(ctx, src, w.Dir()); err != nil {
			return err
		}
		if err := w.Commit(); err != nil {
			return &exitError{code: exitInvalid, err: err}
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "exported %d bundle(s) of %d package(s) to %s\n", e.bundles, len(e.seen), folder)
		return nil
	}
	return cmd
}

// exporter writes the appregistry layout of the packages of an index.
type exporter struct {
	img     *imageFlags
	stderr  io.Writer
	want    []string
	seen    []string
	bundles int
}

func (e *exporter) export(ctx context.Context, src *indexSource, dir string) error {
	err := src.each(ctx, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		if pkg == "" || len(e.want) > 0 && !slices.Contains(e.want, pkg) {
			return nil
		}
		e.seen = append(e.seen, pkg)
		return e.exportPackage(ctx, filepath.Join(dir, pkg), pkg, cfg)
	})
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) {
			return err
		}
		return &exitError{code: exitInvalid, err: err}
	}
	for _, p := range e.want {
		if !slices.Contains(e.seen, p) {
			return &exitError{code: exitInvalid, err: fmt.Errorf("package %s is not in %s", p, src.name)}
		}
	}
	return nil
}

// exportPackage writes one package: each bundle's folder (pulled up to 10
// at a time), then package.yaml.
func (e *exporter) exportPackage(ctx context.Context, dir, pkg string, cfg *declcfg.DeclarativeConfig) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(10)
	var mu sync.Mutex
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
			if err := e.exportBundle(gctx, b, dest); err != nil {
				return fmt.Errorf("exporting bundle %s (%s) of package %s: %w", b.Name, b.Image, pkg, err)
			}
			mu.Lock()
			e.bundles++
			mu.Unlock()
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "package.yaml"), packageYAML(pkg, cfg), 0o644)
}

// exportBundle copies the manifests/ files of the bundle's image to
// dest, or for a bundle without image writes its objects.
func (e *exporter) exportBundle(ctx context.Context, b *declcfg.Bundle, dest string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	if b.Image == "" {
		return writeObjects(b, dest)
	}
	u, err := e.img.resolve(ctx, b.Image, input.Bundle, "export", io.Discard, input.AsImage())
	var nb *input.NotBundleError
	if errors.As(err, &nb) {
		return fmt.Errorf("%s is not a bundle image", b.Image)
	}
	if err != nil {
		return err
	}
	defer u.Close()
	manifests := filepath.Join(u.Path, "manifests")
	return filepath.WalkDir(manifests, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(manifests, p)
		switch {
		case d.IsDir():
			return os.MkdirAll(filepath.Join(dest, rel), 0o755)
		case !d.Type().IsRegular():
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dest, rel), data, 0o644)
	})
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
		fmt.Fprintf(&b, "    - name: %s\n      currentCSV: %s\n", yamlScalar(ch.Name), yamlScalar(indexop.ChannelHead(ch)))
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

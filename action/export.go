package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/input"
)

// IndexExport writes packages of an index in opm v1.73's appregistry
// layout, as its index export did (indexop.ExportPackage): a bundle's
// folder holds the manifests/ files of its image. Nothing is written
// unless every bundle was exported.
type IndexExport struct {
	Env
	// Legacy is told of a legacy sqlite index read: before it is read,
	// and the report of its conversion (its repairs, drops and notes).
	Legacy Legacy
	// Index is a sqlite or declarative config image, an index.db or a
	// catalog directory.
	Index string
	// Packages are the packages exported (none: all).
	Packages []string
	// Folder is the directory written; Force replaces it when it is not
	// empty.
	Folder string
	Force  bool
}

// IndexExportResult counts what was exported.
type IndexExportResult struct {
	Bundles, Packages int
}

// Run takes the folder's lock, reads the index and writes the folder.
func (x IndexExport) Run(ctx context.Context) (IndexExportResult, error) {
	release, err := x.lock(ctx, x.Folder, x.Index)
	if err != nil {
		return IndexExportResult{}, err
	}
	defer release()
	src, err := openIndex(ctx, x.Env, x.Legacy, x.Index, false)
	if err != nil {
		return IndexExportResult{}, err
	}
	defer src.Close()
	w, err := declcfg.NewDirWriter(x.Folder, declcfg.WithInputs(src.inputs()...), declcfg.WithForce(x.Force))
	if err != nil {
		return IndexExportResult{}, err
	}
	defer w.Abort()
	var res IndexExportResult
	var seen []string
	err = src.each(ctx, x.unread, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		if pkg == "" || len(x.Packages) > 0 && !slices.Contains(x.Packages, pkg) {
			return nil
		}
		seen = append(seen, pkg)
		n, err := indexop.ExportPackage(ctx, filepath.Join(w.Dir(), pkg), pkg, cfg, x.copyManifests)
		res.Bundles += n
		return err
	})
	if err != nil {
		return IndexExportResult{}, err
	}
	for _, p := range x.Packages {
		if !slices.Contains(seen, p) {
			return IndexExportResult{}, fmt.Errorf("package %s is not in %s", p, src.name)
		}
	}
	if err := w.Commit(); err != nil {
		return IndexExportResult{}, err
	}
	res.Packages = len(seen)
	return res, nil
}

// unread names the packages not exported: with Packages named, only
// those are read.
func (x IndexExport) unread(pkg string) bool {
	return len(x.Packages) > 0 && !slices.Contains(x.Packages, pkg)
}

// copyManifests copies the manifests/ files of bundle image ref to dest.
func (x IndexExport) copyManifests(ctx context.Context, ref, dest string) error {
	in, err := x.resolve(ctx, ref, input.Bundle, true, input.AsImage())
	var nb *input.NotBundleError
	if errors.As(err, &nb) {
		return fmt.Errorf("%s is not a bundle image", ref)
	}
	if err != nil {
		return err
	}
	defer in.Close()
	manifests := filepath.Join(in.Path, "manifests")
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

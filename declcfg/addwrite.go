package declcfg

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/operator-catalog/olmcat/internal/outdir"
)

// ReplacePackages writes the packages pkgs of cfg (a catalog loaded from
// catalogDir and changed in memory, indexop.Add) back into catalogDir: each
// package's folder is written anew, in the layout and format its files
// had (a new package follows the catalog's other packages; opm's layout
// in JSON when there are none), in a temporary directory beside the
// catalog (inside it when the catalog is a mount point); once every one
// is written they are moved in by rename after a commit record
// (internal/outdir), so that a run killed at any step leaves the old
// catalog, or one that the next run (RecoverCatalog) completes. Nothing
// else in catalogDir is touched. A package whose blobs share files or a
// folder with other packages is refused: only one-folder-per-package
// catalogs (opm and objects layouts) are edited.
func ReplacePackages(catalogDir string, cfg *DeclarativeConfig, pkgs []string) error {
	tx, err := outdir.BeginEntries(catalogDir)
	if err != nil {
		return fmt.Errorf("replace packages: %w", err)
	}
	defer func() { _ = tx.Abort() }() // a no-op once committed
	groups := SplitByPackage(cfg)
	var tops []string
	for i, pkg := range pkgs {
		pc := groups[pkg]
		if pc == nil {
			return fmt.Errorf("replace package %s: not in the catalog", pkg)
		}
		top, err := packageFolder(pc, groups, pkg)
		if err != nil {
			return err
		}
		layout, format := folderLayout(catalogDir, top)
		stage := filepath.Join(filepath.Dir(tx.Dir()), fmt.Sprintf("stage-%d", i))
		if err := WriteDir(pc, stage, WithLayout(layout), WithFormat(format)); err != nil {
			// "write package <pkg>: ..." names the package already.
			return fmt.Errorf("catalog %s: %w", catalogDir, err)
		}
		if top == "" {
			top = safePathElement(pkg)
		}
		if err := os.Rename(filepath.Join(stage, safePathElement(pkg)), filepath.Join(tx.Dir(), top)); err != nil {
			return fmt.Errorf("replace package %s: %w", pkg, err)
		}
		tops = append(tops, top)
	}
	if err := tx.CommitEntries(tops); err != nil {
		return fmt.Errorf("replace packages: %w", err)
	}
	return nil
}

// RecoverCatalog finishes the package replacements (ReplacePackages) and
// whole-directory writes of catalogDir that killed runs had committed, and
// removes the temporary directories of those that had not, before the
// catalog is read. It says what it did, one entry per directory.
func RecoverCatalog(catalogDir string) ([]Swept, error) {
	return outdir.Recover(catalogDir)
}

// packageFolder is the top-level folder holding every file of pkg's
// blobs ("" for a package read from nowhere), refused when it is the
// catalog root or holds other packages' blobs too.
func packageFolder(pc *DeclarativeConfig, groups map[string]*DeclarativeConfig, pkg string) (string, error) {
	top := ""
	for _, f := range originFiles(pc) {
		dir, _, ok := strings.Cut(f, "/")
		if !ok {
			return "", fmt.Errorf("package %s has blobs in %s at the catalog root: only catalogs with one folder per package can be edited", pkg, f)
		}
		if top != "" && dir != top {
			return "", fmt.Errorf("package %s has blobs in folders %s and %s: only catalogs with one folder per package can be edited", pkg, top, dir)
		}
		top = dir
	}
	if top == "" {
		return "", nil
	}
	for name, other := range groups {
		if name == pkg {
			continue
		}
		for _, f := range originFiles(other) {
			if strings.HasPrefix(f, top+"/") {
				what := "package " + name
				if name == "" {
					what = "blobs of no package"
				}
				return "", fmt.Errorf("folder %s holds package %s and %s (%s): only catalogs with one folder per package can be edited", top, pkg, what, f)
			}
		}
	}
	return top, nil
}

// originFiles lists the files cfg's blobs were read from.
func originFiles(cfg *DeclarativeConfig) []string {
	var files []string
	add := func(o Origin) {
		if o.File != "" {
			files = append(files, o.File)
		}
	}
	for _, p := range cfg.Packages {
		add(p.Origin)
	}
	for _, c := range cfg.Channels {
		add(c.Origin)
	}
	for _, b := range cfg.Bundles {
		add(b.Origin)
	}
	for _, d := range cfg.Deprecations {
		add(d.Origin)
	}
	for _, o := range cfg.Others {
		add(o.Origin)
	}
	return files
}

// folderLayout guesses the layout and format of a package folder from
// its files (objects/ means the objects layout; the extension of the
// other files the format); for a new package ("") the first folder of
// the catalog that tells is used.
func folderLayout(catalogDir, top string) (Layout, Format) {
	var folders []string
	if top != "" {
		folders = []string{top}
	} else if ents, err := os.ReadDir(catalogDir); err == nil {
		for _, e := range ents {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
				folders = append(folders, e.Name())
			}
		}
	}
	for _, f := range folders {
		ents, err := os.ReadDir(filepath.Join(catalogDir, f))
		if err != nil {
			continue
		}
		layout, format := LayoutOPM, Format("")
		for _, e := range ents {
			switch ext := path.Ext(e.Name()); {
			case e.IsDir() && e.Name() == "objects":
				layout = LayoutObjects
			case ext == ".yaml" || ext == ".yml":
				format = FormatYAML
			case ext == ".json":
				format = FormatJSON
			}
		}
		if format != "" {
			return layout, format
		}
	}
	return LayoutOPM, FormatJSON
}

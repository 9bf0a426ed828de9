package declcfg

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ReplacePackages writes the packages pkgs of cfg (a catalog loaded from
// catalogDir and changed in memory, AddBundle) back into catalogDir: each
// package's folder is written anew, in the layout and format its files
// had (a new package follows the catalog's other packages; opm's layout
// in JSON when there are none), beside the catalog; once every one is
// written they are swapped in by rename (a failed swap puts back the
// folders already swapped). Nothing else in catalogDir is touched. A
// package whose blobs share files or a folder with other packages is
// refused: only one-folder-per-package catalogs (opm and objects
// layouts) are edited.
func ReplacePackages(catalogDir string, cfg *DeclarativeConfig, pkgs []string) error {
	work, err := os.MkdirTemp(filepath.Dir(filepath.Clean(catalogDir)), ".olmcat-add-*")
	if err != nil {
		return fmt.Errorf("replace packages: %w", err)
	}
	defer os.RemoveAll(work)
	groups := SplitByPackage(cfg)
	var swaps []folderSwap
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
		out := filepath.Join(work, fmt.Sprintf("out-%d", i))
		if err := WriteDir(pc, out, WithLayout(layout), WithFormat(format)); err != nil {
			return fmt.Errorf("replace package %s: %w", pkg, err)
		}
		if top == "" {
			top = safePathElement(pkg)
		}
		swaps = append(swaps, folderSwap{
			written: filepath.Join(out, safePathElement(pkg)),
			dest:    filepath.Join(catalogDir, filepath.FromSlash(top)),
			backup:  filepath.Join(work, fmt.Sprintf("old-%d", i)),
		})
	}
	for i, sw := range swaps {
		if err := sw.swap(); err != nil {
			for j := i - 1; j >= 0; j-- {
				err = errors.Join(err, swaps[j].undo())
			}
			return fmt.Errorf("replace packages: %w", err)
		}
	}
	return nil
}

// folderSwap replaces dest by written, keeping the old dest at backup.
type folderSwap struct{ written, dest, backup string }

func (s folderSwap) swap() error {
	if err := os.Rename(s.dest, s.backup); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if err := os.Rename(s.written, s.dest); err != nil {
		return errors.Join(err, s.restore())
	}
	return nil
}

// undo puts the old folder back after a later swap failed.
func (s folderSwap) undo() error {
	if err := os.RemoveAll(s.dest); err != nil {
		return err
	}
	return s.restore()
}

func (s folderSwap) restore() error {
	if err := os.Rename(s.backup, s.dest); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("restoring %s: %w", s.dest, err)
	}
	return nil
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

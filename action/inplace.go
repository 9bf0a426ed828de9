package action

import (
	"io/fs"
	"path/filepath"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/outdir"
)

// keepsEverything is the check of a rewrite of catalog directory dir in
// place: the new catalog replaces dir as a whole once complete
// (internal/outdir, as every output), in opm's layout, so dir must hold
// nothing the rewrite would lose: only catalog files (.json, .yaml,
// .yml), every one of them read (no .indexignore). Anything else is
// refused before the commit, and nothing is written.
func keepsEverything(dir string) func() error {
	return func() error {
		names, err := outdir.Entries(dir)
		if err != nil {
			return err
		}
		for _, n := range names {
			err := filepath.WalkDir(filepath.Join(dir, n), func(p string, d fs.DirEntry, err error) error {
				switch {
				case err != nil:
					return err
				case d.IsDir():
					return nil
				case d.Type().IsRegular() && d.Name() != declcfg.IndexIgnoreFile && isCatalogFile(p):
					return nil
				}
				rel, _ := filepath.Rel(dir, p)
				return usagef("RegistryEdit.Output", "%s holds %s, which is no catalog file: the rewrite in place would lose it; nothing was written", dir, rel)
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// isCatalogFile says whether the loader reads file p as blobs.
func isCatalogFile(p string) bool {
	switch filepath.Ext(p) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

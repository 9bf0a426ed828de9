//go:build !slim

package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/outdir"
)

// registryTarget is where a registry add|rm|prune|prune-stranded|
// deprecatetruncate writes its result.
type registryTarget int

const (
	targetOutput  registryTarget = iota // --output
	targetNew                           // -d names nothing yet: a new catalog directory there
	targetInPlace                       // -d is a catalog directory: updated in place
)

// errSQLiteTarget is target's refusal of a -d file without --output.
var errSQLiteTarget = errors.New("a file is never written")

// target is where the result goes; errSQLiteTarget when -d is a file (a
// sqlite database) and --output is not given, another error when -d
// cannot be a new catalog directory (its parent is missing).
func (c *registryEditCmd) target() (registryTarget, error) {
	if c.output != "" {
		return targetOutput, nil
	}
	st, err := os.Stat(c.database)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, perr := os.Stat(filepath.Dir(filepath.Clean(c.database))); perr != nil {
			return 0, perr
		}
		return targetNew, nil
	case err == nil && st.IsDir():
		return targetInPlace, nil
	case err == nil:
		return 0, errSQLiteTarget
	}
	return 0, err
}

// inPlace is op rewriting catalog directory dir, which it reads: the new
// catalog replaces dir as a whole once complete (internal/outdir, as
// every output), in opm's layout, so dir must hold nothing the rewrite
// would lose: only catalog files (.json, .yaml, .yml), every one of them
// read (no .indexignore). Anything else is refused before the commit,
// and nothing is written.
func inPlace(op catalogOp, dir string) catalogOp {
	op.inPlace = true
	op.Check = func() error {
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
				return usageError(fmt.Errorf("%s holds %s, which is no catalog file: the rewrite in place would lose it; nothing was written (pass --output DIR)", dir, rel))
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	return op
}

// isCatalogFile says whether the loader reads file p as blobs.
func isCatalogFile(p string) bool {
	switch filepath.Ext(p) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

// recoverInPlace finishes or removes what killed runs left in dir
// before it is read.
func recoverInPlace(dir string, stderr io.Writer) error {
	swept, err := declcfg.RecoverCatalog(dir)
	for _, s := range swept {
		fmt.Fprintln(stderr, s)
	}
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	return nil
}

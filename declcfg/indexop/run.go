package indexop

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// Source calls fn with the blobs of every package of a catalog, one
// package at a time, in name order ("" for the blobs of no package,
// last), and returns an error of fn as is. A package unread names
// (unread may be nil) may be handed over as nil blobs instead of being
// read: a source that converts each package as it reads it (a sqlite
// index) thus reads only what is needed. A sqlite index (read through
// migrate) and a catalog directory (declcfg.EachPackage) are both
// sources; the caller picks the reader, this package reads neither.
type Source func(ctx context.Context, unread func(pkg string) bool, fn func(pkg string, cfg *declcfg.DeclarativeConfig) error) error

// Op is one sqlite-era operation applied package by package, so that a
// catalog of any size streams through it.
type Op struct {
	// Apply returns a package's new blobs (nil drops the package).
	Apply func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error)
	// Unread, if set, names the packages Apply drops whatever they
	// hold: the Source need not read them, and Apply may get nil blobs.
	Unread func(pkg string) bool
	// Extra, if set, returns the packages the operation adds once every
	// existing one was seen.
	Extra func() ([]*declcfg.DeclarativeConfig, error)
	// Check, if set, runs once everything is written, before the commit.
	Check func() error
}

// Run streams the packages of src through op into a catalog directory
// written at out with opts (declcfg.NewDirWriter): atomically, nothing is
// there unless every package was read, changed and written and op.Check
// passed.
func Run(ctx context.Context, src Source, op Op, out string, opts ...declcfg.WriteOption) error {
	w, err := declcfg.NewDirWriter(out, opts...)
	if err != nil {
		return err
	}
	committed := false
	defer func() {
		if !committed {
			_ = w.Abort()
		}
	}()
	write := func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		if pkg == "" {
			return w.WriteGlobal(cfg)
		}
		return w.WritePackage(cfg)
	}
	err = src(ctx, op.Unread, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		res, err := op.Apply(pkg, cfg)
		if err != nil || res == nil {
			return err
		}
		return write(pkg, res)
	})
	if err != nil {
		return err
	}
	if op.Extra != nil {
		more, err := op.Extra()
		if err != nil {
			return err
		}
		for _, cfg := range more {
			if err := write(declcfg.PackageName(cfg), cfg); err != nil {
				return err
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if op.Check != nil {
		if err := op.Check(); err != nil {
			return err
		}
	}
	if err := w.Commit(); err != nil {
		return err
	}
	committed = true
	return nil
}

// validatePackage checks a changed package as validate would.
func validatePackage(pkg string, cfg *declcfg.DeclarativeConfig) error {
	if _, err := model.FromDeclcfg(cfg); err != nil {
		return fmt.Errorf("package %s would not be valid: %w", pkg, err)
	}
	return nil
}

// say sends line to notes, if any.
func say(notes func(string), line string) {
	if notes != nil {
		notes(line)
	}
}

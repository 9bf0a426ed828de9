package model

import (
	"context"
	"errors"

	"github.com/operator-catalog/olmcat/declcfg"
)

// DirValidation is what ValidateDir found besides problems.
type DirValidation struct {
	// Packages, Channels and Bundles count the blobs of each kind; they
	// are set whenever the directory loads, valid or not.
	Packages, Channels, Bundles int
}

// DirOption configures ValidateDir.
type DirOption func(*dirOptions)

type dirOptions struct {
	load    []declcfg.LoadOption
	warn    func(Problem)
	checked func(PackageCheck)
	model   func(*Model) error
}

// WithWarnings makes ValidateDir compute the upgrade-graph warnings
// (Model.Warnings) of every package that passes its checks and hand them
// to fn as soon as that package is checked, in package order, from the
// calling goroutine. The warnings are never held: memory does not grow
// with their number. A package with problems has no model and so no
// warnings; the packages checked before a problem was found keep the
// warnings already handed over. Without this option the warnings are not
// computed.
func WithWarnings(fn func(Problem)) DirOption {
	return func(o *dirOptions) { o.warn = fn }
}

// PackageCheck is what ValidateDir found about one package: its blobs
// per schema and its problems (none when it is valid), in the order
// FromDeclcfg found them. Name is "" for the blobs that name no package.
type PackageCheck struct {
	Name                                      string
	Packages, Channels, Bundles, Deprecations int
	Problems                                  []Problem
}

// WithPackageChecks makes ValidateDir hand each package's outcome to fn
// as soon as the package is checked (after its warnings, see
// WithWarnings), in package order, from the calling goroutine: what a
// caller needs to report package by package while the directory is
// checked.
func WithPackageChecks(fn func(PackageCheck)) DirOption {
	return func(o *dirOptions) { o.checked = fn }
}

// WithModels makes ValidateDir call fn with the model of each package (in
// package order) as long as no problem has been found, so a caller can
// keep what it needs of each package without the catalog ever being held.
// When ValidateDir fails, what fn was given belongs to a catalog that does
// not load or is invalid, and must be discarded. An error from fn stops
// the load and is returned.
func WithModels(fn func(*Model) error) DirOption {
	return func(o *dirOptions) { o.model = fn }
}

// WithConcurrency bounds the number of files decoded at once
// (declcfg.WithConcurrency).
func WithConcurrency(n int) DirOption {
	return func(o *dirOptions) { o.load = append(o.load, declcfg.WithConcurrency(n)) }
}

// WithLeanBundles reads the bundles lean (declcfg.WithLeanBundles): every
// object is checked, then dropped.
func WithLeanBundles() DirOption {
	return func(o *dirOptions) { o.load = append(o.load, declcfg.WithLeanBundles()) }
}

// WithFileReads hands fn what the load saw of each file it decoded (its
// stamp and blob ranges, declcfg.WithFileReads), for a caller that reads
// blobs back from their files later.
func WithFileReads(fn func(declcfg.FileRead)) DirOption {
	return func(o *dirOptions) { o.load = append(o.load, declcfg.WithFileReads(fn)) }
}

// ValidateDir checks the declarative config directory root exactly as
// FromDeclcfg(declcfg.LoadDir(root)) does, with the same error: LoadDir's
// error when the directory does not load, else a *ValidationError with the
// same problems in the same order. It does not hold the catalog: every
// rule of FromDeclcfg concerns one package, so the directory is checked
// package by package (declcfg.EachPackage): each package's files are
// decoded, the package is converted and checked, and its blobs are
// dropped. Memory is bounded by the largest package (or the largest file
// holding several), not by the catalog. WithWarnings streams the graph
// warnings, WithModels the models.
func ValidateDir(ctx context.Context, root string, opts ...DirOption) (DirValidation, error) {
	var o dirOptions
	for _, opt := range opts {
		opt(&o)
	}
	var res DirValidation
	var ps problems
	var nested []error
	err := declcfg.EachPackage(ctx, root, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		res.Packages += len(cfg.Packages)
		res.Channels += len(cfg.Channels)
		res.Bundles += len(cfg.Bundles)
		pc := PackageCheck{Name: pkg, Packages: len(cfg.Packages), Channels: len(cfg.Channels), Bundles: len(cfg.Bundles), Deprecations: len(cfg.Deprecations)}
		m, err := FromDeclcfg(cfg)
		var ve *ValidationError
		switch {
		case errors.As(err, &ve):
			ps = append(ps, ve.Problems...)
			nested = append(nested, ve.nested...)
			if o.checked != nil {
				pc.Problems = ve.Problems
				o.checked(pc)
			}
			return nil
		case err != nil:
			return err
		}
		if o.warn != nil {
			for _, w := range m.Warnings() {
				o.warn(w)
			}
		}
		if o.checked != nil {
			o.checked(pc)
		}
		if o.model != nil && len(ps) == 0 {
			return o.model(m)
		}
		return nil
	}, o.load...)
	if err != nil {
		return DirValidation{}, err
	}
	if len(ps) == 0 {
		return res, nil
	}
	// FromDeclcfg's order: by file and position, rule order within a blob
	// (a blob belongs to one package, so its problems come from one call
	// and keep their order in the stable sort).
	ps.sortByOrigin()
	return res, &ValidationError{Problems: ps, nested: nested}
}

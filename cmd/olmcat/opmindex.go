//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// attachOPMIndexCommands adds opm v1.73's sqlite-era commands (index *,
// registry * but serve) under the "index" and "registry" parents of root,
// creating a parent that does not exist yet.
func attachOPMIndexCommands(root *cobra.Command, img *imageFlags) {
	index := parentCommand(root, "index", "opm v1.73's index commands, on declarative configs (deprecated)")
	index.AddCommand(newIndexAddCmd(img), newIndexRmCmd(img), newIndexPruneCmd(img), newIndexPruneStrandedCmd(img), newIndexExportCmd(img), newIndexDeprecateTruncateCmd(img))
	reg := parentCommand(root, "registry", "opm v1.73's registry commands, on declarative configs (deprecated)")
	reg.AddCommand(newRegistryAddCmd(img), newRegistryRmCmd(img), newRegistryPruneCmd(img), newRegistryPruneStrandedCmd(img), newRegistryDeprecateTruncateCmd(img))
}

// parentCommand returns root's subcommand name, adding a grouping command
// of that name when there is none.
func parentCommand(root *cobra.Command, name, short string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return c
		}
	}
	c := &cobra.Command{Use: name, Short: short}
	root.AddCommand(c)
	return c
}

// indexSource is the catalog an index or registry command starts from:
// a legacy sqlite index (file or image) read through migrate, a
// declarative config (directory or image), or nothing.
type indexSource struct {
	name  string       // as the user gave it
	local *input.Input // nil for none
}

// openIndexSource opens ref ("" for none). missingOK treats a file that
// does not exist as an empty catalog (opm's registry add created it).
func openIndexSource(ctx context.Context, ref string, img *imageFlags, missingOK bool, stderr io.Writer) (*indexSource, error) {
	s := &indexSource{name: ref}
	if ref == "" {
		return s, nil
	}
	if _, err := os.Stat(ref); missingOK && errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "note: %s does not exist: starting from an empty catalog\n", ref)
		s.name = ""
		return s, nil
	}
	in, err := img.resolve(ctx, ref, input.Catalog, "index", stderr, input.PreferSQLite())
	if err != nil {
		return nil, inputError(err, func(err error) error { return &exitError{code: exitInvalid, err: err} })
	}
	s.local = in
	if in.Kind != input.KindSQLite && in.Kind != input.KindDeclcfg {
		s.Close()
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("%s is neither a legacy sqlite index nor a declarative config directory", ref)}
	}
	return s, nil
}

// Close removes what an image extraction left.
func (s *indexSource) Close() { s.local.Close() }

// inputs are the local paths outputs must stay clear of.
func (s *indexSource) inputs() []string {
	if s.name == "" || s.local.Image != "" {
		return nil
	}
	return []string{s.local.Path}
}

// each calls fn with the blobs of every package, one at a time, in name
// order ("" for blobs of no package, last).
//
// An error of fn (writing the output, say) is returned as is: "read
// <input>" would blame the input for it.
func (s *indexSource) each(ctx context.Context, fn func(pkg string, cfg *declcfg.DeclarativeConfig) error) error {
	var fnErr error
	inner := fn
	fn = func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		fnErr = inner(pkg, cfg)
		return fnErr
	}
	err := s.eachPackage(ctx, fn)
	if fnErr != nil && errors.Is(err, fnErr) {
		return fnErr
	}
	return err
}

// eachPackage is each without telling fn's errors apart.
func (s *indexSource) eachPackage(ctx context.Context, fn func(pkg string, cfg *declcfg.DeclarativeConfig) error) error {
	switch {
	case s.name == "":
		return nil
	case s.local.Kind == input.KindSQLite:
		_, err := migrate.Each(ctx, s.local.Path, func(cfg *declcfg.DeclarativeConfig) error {
			return fn(packageName(cfg), cfg)
		})
		if err != nil {
			return fmt.Errorf("read %s: %w", s.name, err)
		}
		return nil
	default:
		if err := declcfg.EachPackage(ctx, s.local.Path, fn); err != nil {
			return fmt.Errorf("read %s: %w", s.name, err)
		}
		return nil
	}
}

// packageName is the package of a one-package catalog.
func packageName(cfg *declcfg.DeclarativeConfig) string { return declcfg.PackageName(cfg) }

// catalogOp is an indexop.Op and how its output relates to the catalog
// read: inPlace writes over the catalog directory read (the new catalog
// replaces it whole at the commit).
type catalogOp struct {
	indexop.Op
	inPlace bool
}

// runCatalogOp streams the packages of src through op into a catalog
// directory written at out (atomically: nothing is there unless every
// package was read, changed, validated and written).
func runCatalogOp(ctx context.Context, stderr io.Writer, src *indexSource, op catalogOp, out string, force bool) error {
	inputs := src.inputs()
	if op.inPlace {
		inputs = nil
	}
	return indexop.Run(ctx, src.each, op.Op, out, declcfg.WithInputs(inputs...), declcfg.WithForce(force),
		declcfg.WithOnAbandonedRemoved(abandonedRemoved(stderr)))
}

// lineWriter is the notes function printing each line on w.
func lineWriter(w io.Writer) func(string) { return func(line string) { fmt.Fprintln(w, line) } }

// noArgsRequiredFlags takes no arguments and makes a missing required
// flag a usage error (exit 2), as a bad flag is; cobra would check the
// required flags after the arguments and return a plain error.
func noArgsRequiredFlags(cmd *cobra.Command, args []string) error {
	if err := exactArgs(0)(cmd, args); err != nil {
		return err
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return usageError(err)
	}
	return nil
}

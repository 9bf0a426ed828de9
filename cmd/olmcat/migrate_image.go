//go:build !slim

package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// runMigrateArg migrates a database file, or the catalog of an image: its
// sqlite database (preferred when it has both, as opm does) migrated
// exactly as the same file would be, or its declarative configs written
// out in the chosen layout. Bundle images are refused with advice.
func runMigrateArg(cmd *cobra.Command, arg, outDir string, f *migrateFlags, opts []migrate.Option) error {
	in, err := f.image.resolveInput(cmd.Context(), arg, input.Either, "migrate", cmd.ErrOrStderr(), input.PreferSQLite())
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return err
	case err != nil || in.Image == "":
		// migrate reads a local argument itself, and reports what it is
		// not.
		if err == nil && in.Note != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), "note:", in.Note)
		}
		return runMigrate(cmd, arg, arg, outDir, f, opts)
	}
	defer in.Close()
	switch in.Kind {
	case input.KindBundle:
		return &exitError{code: exitInvalid, err: fmt.Errorf("migrate %s: this is a bundle image (label %s), not a catalog: "+
			"run olmcat render %s for its olm.bundle blob, or olmcat add <catalog-dir> %s to add it to a catalog", in.Image, annotation.Package, in.Image, in.Image)}
	case input.KindSQLite:
		return runMigrate(cmd, in.Image, in.Path, outDir, f, opts)
	}
	return writeImageConfigs(cmd, in.Image, in.Path, outDir, f)
}

// writeImageConfigs writes the declarative configs of an image to outDir
// in the chosen layout and format (opm migrate of a file-based catalog
// image does the same).
func writeImageConfigs(cmd *cobra.Command, ref, dir, outDir string, f *migrateFlags) error {
	format, err := declcfg.ParseFormat(f.output)
	if err != nil {
		return usageError(err)
	}
	layout, err := declcfg.ParseLayout(f.layout)
	if err != nil {
		return usageError(err)
	}
	cfg, err := declcfg.LoadDir(cmd.Context(), dir)
	if err != nil {
		return &exitError{code: exitInvalid, err: fmt.Errorf("image %s: %w", ref, err)}
	}
	if _, err := model.FromDeclcfg(cfg); err != nil {
		return &exitError{code: exitInvalid, err: fmt.Errorf("image %s: %w", ref, err)}
	}
	if err := declcfg.WriteDir(cfg, outDir, declcfg.WithLayout(layout), declcfg.WithFormat(format), declcfg.WithForce(f.force),
		declcfg.WithOnAbandonedRemoved(abandonedRemoved(cmd.ErrOrStderr()))); err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote the declarative configs of %s to %s: %d packages, %d channels, %d bundles\n",
		ref, outDir, len(cfg.Packages), len(cfg.Channels), len(cfg.Bundles))
	return nil
}

// abandonedRemoved tells the user what a writer did with what a killed
// run left (a temporary directory removed, a committed write finished).
func abandonedRemoved(w io.Writer) func(note string) {
	return func(note string) { fmt.Fprintln(w, note) }
}

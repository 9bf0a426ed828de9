//go:build !slim

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/source"
)

// runMigrateArg migrates a database file, or the catalog of an image: its
// sqlite database (preferred when it has both, as opm does) migrated
// exactly as the same file would be, or its declarative configs written
// out in the chosen layout. Bundle images are refused with advice.
func runMigrateArg(cmd *cobra.Command, arg, outDir string, f *migrateFlags, opts []migrate.Option) error {
	in, err := source.Detect(arg)
	if err != nil || in.Kind != source.KindImage {
		if err == nil && in.Note != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), "note:", in.Note)
		}
		return runMigrate(cmd, arg, arg, outDir, f, opts)
	}
	local, u, err := f.image.localInput(cmd.Context(), in, true, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer u.Close()
	switch {
	case u.Kind == image.KindBundle:
		return &exitError{code: exitInvalid, err: fmt.Errorf("migrate %s: this is a bundle image (label %s), not a catalog: "+
			"run olmcat render %s for its olm.bundle blob, or olmcat add <catalog-dir> %s to add it to a catalog", in.Image, image.LabelBundlePackage, in.Image, in.Image)}
	case local.Kind == source.KindSQLite:
		return runMigrate(cmd, in.Image, local.Ref, outDir, f, opts)
	}
	return writeImageConfigs(cmd, in.Image, local.Ref, outDir, f)
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

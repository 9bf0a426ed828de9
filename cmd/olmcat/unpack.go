package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/registry/source"
)

func newUnpackCmd() *cobra.Command {
	f := &migrateFlags{}
	cmd := &cobra.Command{
		Use:   "unpack <image> [<dir>]",
		Short: "Write the catalog of an index image as a declarative config folder",
		Long: `Unpack pulls a catalog image and writes its catalog as a declarative config
folder, by default named after the image (index:v4.14 -> ./index-v4.14) in
the objects layout (each bundle object in its own file; --layout opm for
opm's layout). The catalog of a sqlite index image is migrated on the way,
as olmcat migrate migrates the file, with the deprecation warning; a
declarative config image is rewritten in the chosen layout. Only the
catalog is extracted from the image; nothing is written unless the whole
catalog is valid, and an existing non-empty folder is only replaced with
--force.`,
		Example: `  olmcat unpack registry.example.com/ns/index:v4.14
  olmcat unpack registry.example.com/ns/index:v4.14 ./catalog --layout opm -o yaml`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageError(fmt.Errorf("accepts an image and an optional directory, received %d args", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts, err := f.options()
			if err != nil {
				return usageError(err)
			}
			in, err := image.Classify(image.ImagePrefix + args[0])
			if err != nil {
				return usageError(err)
			}
			out := image.DirName(in.Image)
			if len(args) == 2 {
				out = args[1]
			}
			local, u, err := f.image.localInput(cmd.Context(), source.Input{Ref: args[0], Kind: source.KindImage, Image: args[0]}, true, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			defer u.Close()
			if err := refuseBundle(u, "unpack"); err != nil {
				return err
			}
			if local.Kind == source.KindSQLite {
				return runMigrate(cmd, args[0], local.Ref, out, f, opts)
			}
			return writeImageConfigs(cmd, args[0], local.Ref, out, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.layout, "layout", string(declcfg.LayoutObjects), "output layout: objects or opm (<package>/catalog.<ext>)")
	fl.StringVarP(&f.output, "output", "o", "json", "output format: json or yaml")
	fl.StringVar(&f.migrateLevel, "migrate-level", "none", "for sqlite images: declarative config migrations to apply (see olmcat migrate)")
	fl.BoolVar(&f.force, "force", false, "replace an existing non-empty output directory")
	fl.BoolVar(&f.noDeprecationWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	f.image = addImageFlags(fl, true)
	return cmd
}

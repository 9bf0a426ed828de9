//go:build !slim

package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
)

// newUnpackCmd is olmcat unpack: a catalog (index) image written as a
// declarative config folder. It unpacks no bundle: olmcat bundle unpack
// unpacks a bundle image on a cluster (bundle_unpack.go), olmcat
// alpha bundle unpack into a local directory (alpha_bundle_unpack.go).
func newUnpackCmd(img *imageFlags) *cobra.Command {
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
--force. The argument is read as every command reads it: a registry
reference (registry.example.com/ns/index:v1, or docker://REF), or a local
OCI layout (oci:DIR[:REF]) or archive of one (oci-archive:FILE[:REF]);
an unqualified name such as index:v1 is a local path, and unpack refuses
local catalogs.`,
		Example: `  olmcat unpack registry.example.com/ns/index:v4.14
  olmcat unpack registry.example.com/ns/index:v4.14 ./catalog --layout opm -o yaml
  olmcat unpack oci:./catalog-oci ./catalog`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageError(fmt.Errorf("accepts an image and an optional directory, received %d args", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := f.options(); err != nil {
				return usageError(err)
			}
			in, err := unpackCatalogInput(args[0])
			if err != nil {
				return err
			}
			out := in.DirName()
			if len(args) == 2 {
				out = args[1]
			}
			return f.run(cmd, args[0], out, input.Catalog)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.layout, "layout", string(declcfg.LayoutObjects), "output layout: objects or opm (<package>/catalog.<ext>)")
	fl.StringVarP(&f.output, "output", "o", "json", "output format: json or yaml")
	fl.StringVar(&f.migrateLevel, "migrate-level", "none", "for sqlite images: declarative config migrations to apply (see olmcat migrate)")
	fl.BoolVar(&f.force, "force", false, "replace an existing non-empty output directory")
	fl.BoolVar(&f.noDeprecationWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	f.image = img
	takesImages(cmd, imageSourceFlags)
	f.waitLock = addWaitLockFlag(fl)
	return cmd
}

// unpackCatalogInput reads the argument of unpack by the rule every command
// uses (input.Classify): it must name an image, never a local catalog.
func unpackCatalogInput(arg string) (*input.Input, error) {
	in, err := input.Classify(arg)
	if errors.Is(err, fs.ErrNotExist) {
		return in, &exitError{code: exitInvalid, err: fmt.Errorf("unpack %s: no such file or directory, and not an image reference: an image names its registry (registry.example.com/ns/index:v1) or is written docker://REF, %sDIR[:REF] or %sFILE[:REF]",
			arg, image.LayoutPrefix, image.ArchivePrefix)}
	}
	if err != nil {
		return in, &exitError{code: exitInvalid, err: fmt.Errorf("unpack: %w", err)}
	}
	if in.Kind != input.KindImage {
		return in, usageError(fmt.Errorf("unpack %s: a local %s, not an image; olmcat migrate or convert writes a local catalog as a folder (docker://%s reads it as an image)", arg, in.Kind, arg))
	}
	return in, nil
}

//go:build !slim

package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
)

func newIndexExportCmd(img *imageFlags) *cobra.Command {
	var (
		index, folder string
		packages, old []string
		force         bool
	)
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Export the manifests of packages of an index in the appregistry layout",
		Long: `Export writes opm v1.73's appregistry layout of packages of an index (a
sqlite or declarative config image, an index.db or a catalog directory):
<folder>/<package>/package.yaml and one folder per bundle version holding
the manifests/ files of the bundle's image (up to 10 pulled at once); a
bundle without an image gets its objects from the catalog, one file each.
Nothing is written unless every bundle was exported. Deprecated: see the
notice for the FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
	}
	fl := cmd.Flags()
	fl.StringVarP(&index, "index", "i", "", "index to get package from")
	_ = cmd.MarkFlagRequired("index")
	fl.StringSliceVarP(&packages, "package", "p", nil, "the package(s) to export (default: all)")
	fl.StringSliceVarP(&old, "xpackage", "o", nil, "the package(s) to export")
	_ = fl.MarkDeprecated("xpackage", "use -p/--package instead")
	fl.StringVarP(&folder, "download-folder", "f", "downloaded", "directory where downloaded operator bundle(s) will be stored")
	fl.BoolVar(&force, "force", false, "replace an existing non-empty download folder")
	addDaemonToolFlag(fl, "container-tool", "c", "none", "tool to interact with container images (save, build, etc.). One of: [none, docker, podman]")
	fl.Bool("debug", false, "enable debug logging")
	_ = fl.MarkHidden("debug")
	takesImages(cmd, imageInputFlags)
	notice := addOPMNoticeFlag(fl)
	waitLock := addWaitLockFlag(fl)
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		notice.print(cmd, "olmcat unpack "+shellQuote(index)+" catalog --layout objects"+imageFlagArgs(cmd.Flags()))
		if len(packages) > 0 && len(old) > 0 {
			return usageError(errors.New("cannot simultaneously set '-p' and '-o' flags, remove '-o'"))
		}
		noteDaemonTools(fl, cmd.ErrOrStderr())
		res, err := action.IndexExport{Env: actionEnv(cmd, img, waitLock), Legacy: conversionHooks(cmd), Index: index, Packages: packageList(append(packages, old...)),
			Folder: folder, Force: force}.Run(cmd.Context())
		if err != nil {
			return actionError(err, "index")
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "exported %d bundle(s) of %d package(s) to %s\n", res.Bundles, res.Packages, folder)
		return nil
	}
	return cmd
}

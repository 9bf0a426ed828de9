//go:build !slim

package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle"
)

// bundleBuildFlags are opm alpha bundle build's flags and olmcat's
// --oci-layout and --force.
type bundleBuildFlags struct {
	bundleGenFlags
	tag, ociLayout   string
	builder          *string
	overwrite, force bool
	img              *imageFlags
	waitLock         *waitLockFlag
}

func newAlphaBundleBuildCmd(img *imageFlags) *cobra.Command {
	f := &bundleBuildFlags{}
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Build a bundle image from a bundle directory, without a container daemon",
		Long: `Generate the bundle's metadata/annotations.yaml and ./bundle.Dockerfile as
opm alpha bundle generate does (without --overwrite an existing
annotations.yaml must hold every generated annotation and is kept, and
so is an existing bundle.Dockerfile), then build the bundle image
in-process: the manifests at /manifests, the metadata at /metadata,
labelled with the annotations of annotations.yaml. The build is
reproducible: the same directory gives the same digest. The image is
pushed as --tag, or written as an OCI layout with --oci-layout DIR
(then --tag, optional, names it in the layout and nothing is pushed);
render reads it as oci:DIR. The digest is printed on stdout.`,
		Example: `  olmcat alpha bundle build -d ./etcd/0.9.4/manifests -p etcd -c alpha,stable -e stable -t registry.example.com/ns/etcd-bundle:v0.9.4
  olmcat alpha bundle build -d ./etcd/0.9.4/manifests -p etcd -c stable --oci-layout ./etcd-bundle-oci`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error { return f.run(cmd) },
	}
	fl := cmd.Flags()
	f.addFlags(fl)
	fl.StringVarP(&f.tag, "tag", "t", "", "The image tag applied to the bundle image (pushed there unless --oci-layout)")
	f.builder = addDaemonToolFlag(fl, "image-builder", "b", "docker", "Tool used to manage container images. One of: [docker, podman, buildah]")
	fl.BoolVarP(&f.overwrite, "overwrite", "o", false, "To overwrite annotations.yaml locally if existed. By default, overwrite is set to false.")
	fl.StringVar(&f.ociLayout, "oci-layout", "", "write the image as an OCI image layout in `DIR` instead of pushing it")
	fl.BoolVar(&f.force, "force", false, "replace an existing OCI layout at --oci-layout")
	f.waitLock = addWaitLockFlag(fl)
	f.img = img
	takesImages(cmd, registryFlags)
	return cmd
}

// run generates the metadata, builds the image and pushes or writes it.
func (f *bundleBuildFlags) run(cmd *cobra.Command) error {
	switch {
	case f.dir == "":
		return usageError(errors.New(`required flag(s) "directory" not set`))
	case f.tag == "" && f.ociLayout == "":
		return usageError(errors.New(`required flag(s) "tag" not set (or write an OCI layout with --oci-layout DIR)`))
	}
	if b := *f.builder; b != "docker" && b != "podman" && b != "buildah" && b != "none" {
		return usageError(fmt.Errorf("--image-builder: %s is not supported image builder", b))
	}
	// Checked before the notes: bad image flags are refused first.
	if _, err := f.img.options(); err != nil {
		return usageError(err)
	}
	noteDaemonTools(cmd.Flags(), cmd.ErrOrStderr())
	gen := bundle.GenerateOptions{Dir: f.dir, Package: f.pkg, Channels: f.channels, DefaultChannel: f.defaultChannel,
		OutputDir: f.outputDir, BaseImage: f.baseImage, Overwrite: f.overwrite}
	res, err := action.BundleBuild{Env: actionEnv(cmd, f.img, f.waitLock), Generate: gen, Tag: f.tag, OCILayout: f.ociLayout,
		Force: f.force}.Run(cmd.Context())
	var missing *bundle.MissingNamesError
	var mismatch *bundle.AnnotationsMismatchError
	if errors.As(err, &missing) || errors.As(err, &mismatch) {
		return generateError(err)
	}
	if err != nil {
		return actionError(imageError(err), "alpha bundle build")
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "built bundle %s from %s and %s\n", res.Where, res.ManifestsDir, res.MetadataDir)
	fmt.Fprintf(cmd.OutOrStdout(), "%s@%s\n", res.Where, res.Digest)
	return nil
}

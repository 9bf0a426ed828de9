//go:build !slim

package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle"
)

// bundleGenFlags are opm alpha bundle generate's flags.
type bundleGenFlags struct {
	dir, pkg, channels, defaultChannel, outputDir, baseImage string
	// swept tells what the writes swept of killed runs (set by RunE).
	swept func(dir string)
}

func newAlphaBundleGenerateCmd() *cobra.Command {
	f := &bundleGenFlags{}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate the metadata/annotations.yaml and bundle.Dockerfile of a bundle directory",
		Long: `Write <parent of --directory>/metadata/annotations.yaml (or, with
--output-dir, copy the manifests to <output-dir>/manifests/ and write
<output-dir>/metadata/annotations.yaml) and ./bundle.Dockerfile, byte for
byte as opm alpha bundle generate writes them. The media type is detected
from the manifests (registry+v1 with a ClusterServiceVersion, helm for a
chart, plain otherwise). --package and --channels are required: olmcat does
not infer them from an appregistry package directory.`,
		Example: `  olmcat alpha bundle generate -d ./etcd/0.9.4/manifests -p etcd -c alpha,stable -e stable`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.dir == "" {
				return usageError(errors.New(`required flag(s) "directory" not set`))
			}
			f.swept = sweptPrinter(cmd.ErrOrStderr())
			return f.generate()
		},
	}
	f.addFlags(cmd.Flags())
	return cmd
}

// addFlags registers the flags generate and build share.
func (f *bundleGenFlags) addFlags(fl *pflag.FlagSet) {
	fl.StringVarP(&f.dir, "directory", "d", "", "The directory where bundle manifests for a specific version are located.")
	fl.StringVarP(&f.pkg, "package", "p", "", "The name of the package that bundle image belongs to")
	fl.StringVarP(&f.channels, "channels", "c", "", "The list of channels that bundle image belongs to")
	fl.StringVarP(&f.defaultChannel, "default", "e", "", "The default channel for the bundle image")
	fl.StringVarP(&f.outputDir, "output-dir", "u", "", "Optional output directory for operator manifests")
	fl.StringVar(&f.baseImage, "base-image", "scratch", "Use a custom image pullspec as the base bundle image")
}

// generate writes annotations.yaml and bundle.Dockerfile.
func (f *bundleGenFlags) generate() error {
	_, _, err := f.write(true)
	return err
}

// write generates <root>/metadata/annotations.yaml and
// ./bundle.Dockerfile (bundle.Generate) and returns the bundle's
// manifests and metadata dirs. Without overwrite (opm alpha bundle build
// without --overwrite) an existing annotations.yaml must hold every
// generated annotation and is kept, and so is an existing
// bundle.Dockerfile.
func (f *bundleGenFlags) write(overwrite bool) (manifestsDir, metadataDir string, err error) {
	g, err := bundle.Generate(bundle.GenerateOptions{
		Dir: f.dir, Package: f.pkg, Channels: f.channels, DefaultChannel: f.defaultChannel,
		OutputDir: f.outputDir, BaseImage: f.baseImage, Overwrite: overwrite,
		Swept: f.swept,
	})
	if err != nil {
		return "", "", generateError(err)
	}
	return g.ManifestsDir, g.MetadataDir, nil
}

// generateError is the error of bundle.Generate as the command returns
// it: missing names and a kept annotations.yaml name the flags that
// resolve them.
func generateError(err error) error {
	var missing *bundle.MissingNamesError
	var mismatch *bundle.AnnotationsMismatchError
	switch {
	case errors.As(err, &missing):
		return usageError(fmt.Errorf("please manually input channels and packageName (--package and --channels) for directory %s", missing.Dir))
	case errors.As(err, &mismatch):
		err = fmt.Errorf("%s (kept: --overwrite replaces it): [%s]", mismatch.File, strings.Join(mismatch.Problems, ", "))
	}
	return &exitError{code: exitInvalid, err: err}
}

// sweptPrinter prints on stderr each temporary directory of a killed
// run that a write removed.
func sweptPrinter(stderr io.Writer) func(dir string) {
	return func(dir string) { fmt.Fprintln(stderr, action.AbandonedNote(dir)) }
}

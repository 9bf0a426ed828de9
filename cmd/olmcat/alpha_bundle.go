//go:build !slim

package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

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

// addFlags registers the flags generate and build share.
func (f *bundleGenFlags) addFlags(fl *pflag.FlagSet) {
	fl.StringVarP(&f.dir, "directory", "d", "", "The directory where bundle manifests for a specific version are located.")
	fl.StringVarP(&f.pkg, "package", "p", "", "The name of the package that bundle image belongs to")
	fl.StringVarP(&f.channels, "channels", "c", "", "The list of channels that bundle image belongs to")
	fl.StringVarP(&f.defaultChannel, "default", "e", "", "The default channel for the bundle image")
	fl.StringVarP(&f.outputDir, "output-dir", "u", "", "Optional output directory for operator manifests")
	fl.StringVar(&f.baseImage, "base-image", "scratch", "Use a custom image pullspec as the base bundle image")
}

// generate writes <root>/metadata/annotations.yaml and
// ./bundle.Dockerfile (bundle.Generate), replacing them as opm's generate
// does.
func (f *bundleGenFlags) generate() error {
	_, err := bundle.Generate(bundle.GenerateOptions{
		Dir: f.dir, Package: f.pkg, Channels: f.channels, DefaultChannel: f.defaultChannel,
		OutputDir: f.outputDir, BaseImage: f.baseImage, Overwrite: true,
		Swept: f.swept,
	})
	if err != nil {
		return generateError(err)
	}
	return nil
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

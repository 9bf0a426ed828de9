//go:build !slim

package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/atomicfile"
)

// pullBundle pulls the bundle image ref and checks that it is one; the
// caller closes the result, whose Path holds manifests/ and metadata/.
func pullBundle(cmd *cobra.Command, img *imageFlags, ref string) (*input.Input, error) {
	in, err := input.Classify(ref)
	if err != nil {
		return nil, &exitError{code: exitInvalid, err: err}
	}
	if in.Kind != input.KindImage {
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("%s is not an image reference", ref)}
	}
	b, err := img.resolve(cmd.Context(), ref, input.Bundle, "bundle", cmd.ErrOrStderr())
	var nb *input.NotBundleError
	if errors.As(err, &nb) {
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("%s is not a bundle image (no %s label)", ref, annotation.Package)}
	}
	return b, inputError(err, func(err error) error { return &exitError{code: exitInvalid, err: err} })
}

// newAlphaBundleUnpackCmd is opm alpha bundle unpack: a bundle image's
// content into a local directory, validated first. (olmcat unpack is a
// catalog image to a folder, olmcat bundle unpack a bundle image unpacked
// on a cluster.)
func newAlphaBundleUnpackCmd(img *imageFlags) *cobra.Command {
	var out string
	var skipValidation, debug bool
	cmd := &cobra.Command{
		Use:   "unpack BUNDLE_NAME[:TAG|@DIGEST]",
		Short: "Unpacks the content of an operator bundle image into a directory",
		Long: `Pull a bundle image without a daemon, validate it as alpha bundle
validate does (-v skips that) and copy its whole content (manifests/, metadata/) into
--out, as opm alpha bundle unpack did.`,
		Example: `  olmcat alpha bundle unpack registry.example.com/ns/etcd-bundle:v0.9.4 -o ./etcd-bundle`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if st, err := os.Stat(out); err == nil && !st.IsDir() {
				return &exitError{code: exitInvalid, err: fmt.Errorf("out %s is not a directory", out)}
			}
			b, err := pullBundle(cmd, img, args[0])
			if err != nil {
				return err
			}
			defer b.Close()
			if !skipValidation {
				if err := validateBundleDir(cmd.ErrOrStderr(), b.Path, true); err != nil {
					return err
				}
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			return atomicfile.CopyTree(b.Path, out, true, atomicfile.OnSwept(sweptPrinter(cmd.ErrOrStderr())))
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&out, "out", "o", "./", "directory in which to unpack operator bundle content")
	fl.BoolVarP(&skipValidation, "skip-validation", "v", false, "disable bundle validation")
	fl.BoolVarP(&debug, "debug", "d", false, "enable debug log output (accepted)")
	takesImages(cmd, registryFlags)
	fl.StringVarP(&img.caFile, "root-ca", "c", "", "file path of a root CA to use when communicating with image registries")
	fl.BoolVarP(&img.useHTTP, "skip-tls", "s", false, "use plain HTTP (deprecated: --use-http)")
	_ = fl.MarkDeprecated("skip-tls", "use --use-http and --skip-tls-verify instead")
	return cmd
}

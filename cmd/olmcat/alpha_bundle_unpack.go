//go:build !slim

package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle/bundlecheck"
)

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
			_, err := action.BundleValidate{Env: actionEnv(cmd, img, nil), Image: args[0], SkipValidation: skipValidation, Out: out}.Run(cmd.Context())
			var invalid *action.InvalidBundleError
			if errors.As(err, &invalid) {
				stage := "format"
				if invalid.Stage == bundlecheck.StageContent {
					stage = "content"
				}
				err = fmt.Errorf("bundle %s validation failed: %w", stage, err)
			}
			return actionError(err, "alpha bundle unpack")
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

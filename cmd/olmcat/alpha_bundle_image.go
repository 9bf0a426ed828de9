//go:build !slim

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/bundle/bundlecheck"
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

// validateBundleDir runs opm's bundle validation on an unpacked bundle,
// prints its warnings to w and returns an invalid bundle as an exit-1
// error: "Bundle validation errors: ..." behind a stage prefix when
// withStage is set (unpack's "bundle format validation failed: ").
// The image's files are read through an os.Root: a symlink in the image
// cannot make validation read outside it.
func validateBundleDir(w io.Writer, dir string, withStage bool, optional ...bundlecheck.Optional) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	r := bundlecheck.Validate(root.FS(), bundlecheck.WithOptional(optional...))
	for _, p := range r.Warnings {
		fmt.Fprintf(w, "warning: %s: %s\n", p.File, p.Message)
	}
	if err = r.Err(); err == nil {
		return nil
	}
	if withStage {
		stage := "format"
		if r.Stage() == bundlecheck.StageContent {
			stage = "content"
		}
		err = fmt.Errorf("bundle %s validation failed: %w", stage, err)
	}
	return &exitError{code: exitInvalid, err: err}
}

// newAlphaBundleUnpackCmd is opm alpha bundle unpack: a bundle image's
// content into a directory, validated first.
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

// newAlphaBundleValidateCmd is opm alpha bundle validate (deprecated in
// opm too): pull a bundle image and validate it.
func newAlphaBundleValidateCmd(img *imageFlags) *cobra.Command {
	var tag, optional string
	cmd := &cobra.Command{
		Use:        "validate",
		Short:      "Validate bundle image",
		Deprecated: "This subcommand is deprecated and will be removed in a future release. Migrate to operator-sdk bundle validate",
		Long: `Pull the bundle image --tag without a daemon and validate it as opm
does: the format (manifests/ and metadata/, the annotations and
dependencies files), then the content (every manifest's kind, the CSV,
the CRDs, other objects' metadata, owned CRDs present). The optional
validators are operatorhub (the CSV metadata OperatorHub shows) and
bundle-objects (PodDisruptionBudgets, PriorityClasses, RBAC on default
SecurityContextConstraints).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if tag == "" {
				return usageError(errors.New(`required flag(s) "tag" not set`))
			}
			noteDaemonTools(cmd.Flags(), cmd.ErrOrStderr())
			var validators []bundlecheck.Optional
			for _, v := range strings.Split(optional, ",") {
				switch v := bundlecheck.Optional(strings.TrimSpace(v)); v {
				case "":
				case bundlecheck.OperatorHub, bundlecheck.BundleObjects:
					validators = append(validators, v)
				default:
					return usageError(fmt.Errorf("--optional-validators %q: want operatorhub or bundle-objects", v))
				}
			}
			b, err := pullBundle(cmd, img, tag)
			if err != nil {
				return err
			}
			defer b.Close()
			if err := validateBundleDir(cmd.ErrOrStderr(), b.Path, false, validators...); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "All validation tests have been completed successfully")
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&tag, "tag", "t", "", "The path of a registry to pull from, image name and its tag that present the bundle image")
	addDaemonToolFlag(fl, "image-builder", "b", "docker", "Tool used to pull and unpack bundle images")
	fl.StringVarP(&optional, "optional-validators", "o", "", "Specifies optional validations to be run. One or more of: [operatorhub, bundle-objects]")
	takesImages(cmd, registryFlags)
	return cmd
}

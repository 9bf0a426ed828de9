//go:build !slim

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/bundle/bundlecheck"
)

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

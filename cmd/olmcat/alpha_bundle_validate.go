//go:build !slim

package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle/bundlecheck"
)

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
			_, err := action.BundleValidate{Env: actionEnv(cmd, img, nil), Image: tag, Optional: validators}.Run(cmd.Context())
			if err != nil {
				return actionError(err, "alpha bundle validate")
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

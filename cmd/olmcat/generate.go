//go:build !slim

package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/image"
)

func newGenerateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "generate",
		Short: "Generate files for catalogs (dockerfile)",
		Args:  exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError(errors.New("missing subcommand: dockerfile"))
		},
	}
}

func newGenerateDockerfileCmd() *cobra.Command {
	var (
		base, builder, binary string
		labels                []string
	)
	cmd := &cobra.Command{
		Use:   "dockerfile <dir>",
		Short: "Write the Dockerfile opm generate dockerfile writes for a catalog directory",
		Long: `Write <parent>/<dir>.Dockerfile, the same file opm generate dockerfile
writes: a builder stage that pre-builds opm's serve cache and a final stage
serving /configs with it, labelled with the configs label. The build
context is the directory's parent. An existing Dockerfile is never
replaced. olmcat build makes a catalog image without any of this (no
daemon, no opm image needed).`,
		Example: `  olmcat generate dockerfile ./catalog -i registry.example.com/operator-framework/opm:v1.73.0
  olmcat generate dockerfile ./catalog -i scratch -b registry.example.com/operator-framework/opm:v1.73.0 -l org.opencontainers.image.source=https://example.com/catalog`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := image.DockerfileOptions{BaseImage: base, BuilderImage: builder, ExtraLabels: map[string]string{}}
			if base == "" && binary == "" {
				return usageError(errors.New("--base-image is required: the opm image your pipeline serves the catalog with (olmcat has no default image)"))
			}
			if binary != "" {
				if cmd.Flags().Changed("base-image") {
					return usageError(errors.New("--binary-image and --base-image are mutually exclusive"))
				}
				o.BaseImage = binary
				if !cmd.Flags().Changed("builder-image") {
					o.BuilderImage = binary
				}
			}
			for _, l := range labels {
				k, v, ok := strings.Cut(l, "=")
				if !ok || k == "" {
					return usageError(fmt.Errorf("--extra-labels %q: want key=value", l))
				}
				o.ExtraLabels[k] = v // a repeated key: the last wins
			}
			_, err := action.GenerateDockerfile{Dir: args[0], Options: o}.Run(cmd.Context())
			return actionError(err, "generate")
		},
	}
	f := cmd.Flags()
	f.StringVarP(&base, "base-image", "i", "", "image of the final stage, required (scratch: no opm in the image, for OLM's extractContent)")
	f.StringVarP(&builder, "builder-image", "b", "", "image that pre-builds the serve cache (must contain /bin/opm; default: the base image)")
	f.StringSliceVarP(&labels, "extra-labels", "l", nil, "extra `key=value` labels (repeatable, or comma-separated as in opm)")
	f.StringVar(&binary, "binary-image", "", "deprecated: base and builder image at once")
	_ = f.MarkDeprecated("binary-image", "use --base-image and --builder-image")
	return cmd
}

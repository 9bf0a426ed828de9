//go:build !slim

package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/migrate"
)

func newRenderTemplateCmd(img *imageFlags) *cobra.Command {
	var output, migrateLevel string
	cmd := &cobra.Command{
		Use:   "render-template [basic|semver|substitutes] [FILE]",
		Short: "Render a catalog template (basic, semver or substitutes) into a declarative config",
		Long: `Render-template renders a catalog template as opm alpha render-template does.
The type is detected from the template's schema (olm.template.basic,
olm.semver, olm.template.substitutes) unless given; without FILE, or with
FILE "-", the template is read from stdin. Bundle images are pulled
without a daemon (layer cache, auth files, registries.conf mirrors, the
TLS flags); a bundle directory (manifests/ and metadata/) may stand in
for an image. Nothing is written unless the whole template renders;
errors name the template file, entry and field.`,
		Example: `  olmcat alpha render-template catalog-template.yaml > catalog/foo/catalog.json
  olmcat alpha render-template semver foo-semver.yaml -o yaml
  olmcat alpha render-template basic < template.json -o mermaid`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 2 {
				return usageError(fmt.Errorf("accepts at most 2 arg(s), received %d", len(args)))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			t, file, err := templateArgs(args)
			if err != nil {
				return usageError(err)
			}
			if output != "json" && output != "yaml" && output != "mermaid" {
				return usageError(fmt.Errorf("invalid --output value %q, expected (json|yaml|mermaid)", output))
			}
			level, err := migrate.ParseLevel(migrateLevel)
			if err != nil {
				return usageError(fmt.Errorf("--migrate-level: %w", err))
			}
			r := action.RenderTemplate{Env: actionEnv(cmd, img, nil), File: file, In: cmd.InOrStdin(), Type: t,
				MigrateLevel: level}
			// Rendered bundles wait on disk (json, yaml) or are reduced
			// to what the graph reads (mermaid), not held in memory.
			if output != "mermaid" {
				r.Out, r.Format = cmd.OutOrStdout(), declcfg.Format(output)
			} else {
				r.StandIns = true
			}
			res, err := r.Run(cmd.Context())
			if err != nil {
				return actionError(err, "render-template")
			}
			if output != "mermaid" {
				return nil
			}
			return writeMermaid(cmd.OutOrStdout(), res.Config)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "json", "output format: json, yaml or mermaid")
	cmd.Flags().StringVar(&migrateLevel, "migrate-level", string(migrate.MigrateLevelNone), "for bundles: "+string(migrate.MigrateLevelCSVMetadata)+" replaces the olm.bundle.object properties with olm.csv.metadata")
	takesImages(cmd, imageInputFlags)
	return cmd
}

// templateArgs reads opm's arguments: [TYPE] [FILE]. One argument is a
// type when it names one, else the file; "" or "-" is stdin.
func templateArgs(args []string) (template.Type, string, error) {
	switch len(args) {
	case 0:
		return "", "", nil
	case 1:
		if t, err := template.ParseType(args[0]); err == nil {
			return t, "", nil
		}
		return "", args[0], nil
	}
	t, err := template.ParseType(args[0])
	return t, args[1], err
}

// writeMermaid draws a rendered catalog's upgrade graph; it is drawn in
// memory first so that a failure writes nothing.
func writeMermaid(w io.Writer, cfg *declcfg.DeclarativeConfig) error {
	var buf bytes.Buffer
	// opm's render-template draws with render-graph's v0 semantics
	// (skipped bundles and skip edges styled), whatever the flags.
	g, err := graph.Build(cfg)
	if err == nil {
		err = graph.WriteMermaid(&buf, g, graph.MermaidV0Semantics(true))
	}
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	_, err = buf.WriteTo(w)
	return err
}

//go:build !slim

package main

import (
	"errors"
	"fmt"
	"text/template"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/migrate"
)

func newRenderCmd(img *imageFlags) *cobra.Command {
	f := &renderFlags{img: img}
	cmd := &cobra.Command{
		Use:   "render <dir|file|index.db|image|bundle-dir>...",
		Short: "Print the blobs of declarative configs as one stream",
		Long: `Render loads each argument (a declarative config directory, or a single
JSON/YAML blob file) and writes all blobs as one stream on stdout, in opm's
order and format (JSON indented by four spaces, or YAML documents).
Bundle objects stored by reference are inlined. A legacy sqlite index
database is converted as olmcat migrate converts it (see MIGRATION.md).
An image reference is pulled (catalog images render their catalog); a
bundle image or a bundle directory (manifests/ and metadata/) renders as
the olm.bundle blob opm render gives, image field as typed.`,
		Example: `  olmcat render ./catalog > catalog.json
  olmcat render ./a ./b -o yaml
  olmcat render index.db > catalog.json
  olmcat render registry.example.com/ns/etcd-bundle:v0.9.2
  olmcat render ./bundles/etcd.0.9.2`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := declcfg.ParseFormat(f.output)
			if err != nil {
				return usageError(err)
			}
			level, err := renderMigrateLevel(cmd, f.migrateAll, f.migrateLevel)
			if err != nil {
				return err
			}
			tmpl, err := parseImageRefTemplate(f.imageRefTemplate)
			if err != nil {
				return usageError(err)
			}
			_, err = action.Render{Env: actionEnv(cmd, f.img, nil), Refs: args, MigrateLevel: level, ImageRefTemplate: tmpl,
				Legacy: legacyHooks(cmd.ErrOrStderr(), "render", imageFlagArgs(cmd.Flags()), !f.noDeprecationWarning),
				Out:    cmd.OutOrStdout(), Format: format}.Run(cmd.Context())
			return actionError(err, "render")
		},
	}
	f.register(cmd.Flags())
	takesImages(cmd, imageSourceFlags)
	return cmd
}

// renderFlags are the flags of olmcat render.
type renderFlags struct {
	output, migrateLevel, imageRefTemplate string
	migrateAll, noDeprecationWarning       bool
	img                                    *imageFlags
}

func (f *renderFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.output, "output", "o", string(declcfg.FormatJSON), "output format: json or yaml")
	fs.BoolVar(&f.noDeprecationWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	fs.StringVar(&f.migrateLevel, "migrate-level", string(migrate.MigrateLevelNone), "for bundles: "+string(migrate.MigrateLevelCSVMetadata)+" replaces the olm.bundle.object properties with olm.csv.metadata")
	fs.BoolVar(&f.migrateAll, "migrate", false, "run every migration on rendered bundles (--migrate-level "+string(migrate.MigrateLevelCSVMetadata)+")")
	fs.StringVar(&f.imageRefTemplate, "alpha-image-ref-template", "", "image reference of bundle directories (which have none), as a Go template of {{.Package}}, {{.Name}} and {{.Version}}")
}

// renderMigrateLevel is the migrate level --migrate-level or --migrate
// (every migration) asks for.
func renderMigrateLevel(cmd *cobra.Command, all bool, level string) (migrate.Level, error) {
	if all {
		if cmd.Flags().Changed("migrate-level") {
			return "", usageError(errors.New("--migrate and --migrate-level are mutually exclusive"))
		}
		level = string(migrate.MigrateLevelCSVMetadata) // the last migration
	}
	if l := migrate.Level(level); l != migrate.MigrateLevelNone && l != migrate.MigrateLevelCSVMetadata {
		return "", usageError(fmt.Errorf("unknown --migrate-level %q (want %s or %s)", level, migrate.MigrateLevelNone, migrate.MigrateLevelCSVMetadata))
	}
	return migrate.Level(level), nil
}

// parseImageRefTemplate parses --alpha-image-ref-template (nil for "").
func parseImageRefTemplate(text string) (*template.Template, error) {
	if text == "" {
		return nil, nil
	}
	t, err := template.New("image-ref").Option("missingkey=error").Parse(text)
	if err != nil {
		return nil, fmt.Errorf("--alpha-image-ref-template: %w", err)
	}
	return t, nil
}

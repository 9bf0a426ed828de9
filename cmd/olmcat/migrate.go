//go:build !slim

package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/runtimetune"
	"github.com/operator-catalog/olmcat/migrate"
)

// migrateFlags are the flags of olmcat migrate.
type migrateFlags struct {
	layout                   string
	output                   string
	migrateLevel             string
	keepDeprecated           bool
	force                    bool
	report                   string
	reportHTML               string
	v1Check                  bool
	noDeprecationWarning     bool
	dropInvalidRelatedImages bool
	dropInvalidBundles       bool
	verify                   bool
	toTemplate               string
	image                    *imageFlags
	waitLock                 *waitLockFlag
}

func newMigrateCmd(img *imageFlags) *cobra.Command {
	f := &migrateFlags{}
	cmd := &cobra.Command{
		Use:   "migrate <index.db> <out-dir>",
		Short: "Migrate a legacy sqlite index to a declarative config catalog",
		Long: `Migrate converts a legacy sqlite index database (opm index add / opm registry add)
into a declarative config catalog: one folder per package with its olm.package,
olm.channel and olm.bundle blobs, the layout opm serve reads.

The database is opened read-only. Everything is written to a temporary
directory beside <out-dir>, validated, and renamed into place only if the
whole catalog is servable; an existing non-empty <out-dir> is replaced only
with --force. Every repair of known damage, every bundle left out and every
problem is printed on stderr (and written as JSON with --report FILE).
Content that would not serve fails the migration (exit 1) with a hint per
kind of problem; see MIGRATION.md.`,
		Example: `  olmcat migrate index.db catalog/
  olmcat migrate index.db catalog/ -o yaml --migrate-level bundle-object-to-csv-metadata
  olmcat migrate index.db catalog/ --keep-deprecated --report migrate-report.json`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd, args[0], args[1], input.Either) },
	}
	fl := cmd.Flags()
	f.image = img
	takesImages(cmd, imageSourceFlags)
	f.waitLock = addWaitLockFlag(fl)
	fl.StringVar(&f.layout, "layout", "opm", "output layout: opm (<package>/catalog.<ext>) or objects")
	fl.StringVarP(&f.output, "output", "o", "json", "output format: json or yaml")
	fl.StringVar(&f.migrateLevel, "migrate-level", string(migrate.MigrateLevelNone), "declarative config migrations to apply: "+levelNames())
	fl.BoolVar(&f.keepDeprecated, "keep-deprecated", false, "keep bundles the index deprecated (opm dropped them), listed in an olm.deprecations blob")
	fl.BoolVar(&f.force, "force", false, "replace an existing non-empty output directory")
	fl.StringVar(&f.report, "report", "", "write the migration report as JSON to `FILE`")
	fl.StringVar(&f.reportHTML, "report-html", "", "write the migration report as one self-contained HTML page (summary, every repair and drop, each package's graph before and after) to `FILE`")
	fl.BoolVar(&f.v1Check, "v1-check", false, "check what OLM v1 does with each converted package (olmcat v1-check): a line of totals, and a section in --report and --report-html")
	fl.BoolVar(&f.noDeprecationWarning, "no-deprecation-warning", false, "accepted for scripts written for other commands; migrate prints no deprecation warning")
	_ = fl.MarkHidden("no-deprecation-warning")
	fl.BoolVar(&f.dropInvalidRelatedImages, "drop-invalid-related-images", false, "leave out related images with an invalid reference instead of failing")
	fl.BoolVar(&f.dropInvalidBundles, "drop-invalid-bundles", false, "leave out bundles that cannot be served (invalid image, version, skipRange, properties) instead of failing")
	fl.BoolVar(&f.verify, "verify", false, "before committing the output, check that it serves every RPC answer the database served (olmcat parity); any loss fails the migration")
	fl.StringVar(&f.toTemplate, "to-template", "", "write per package the catalog template (basic or semver) that renders back to the migrated catalog, instead of the catalog; with --verify, render them back (pulling the bundle images) and check parity --strict against the migration")
	return cmd
}

// options turns the flags into migrate options.
func (f *migrateFlags) options() ([]migrate.Option, error) {
	format, err := declcfg.ParseFormat(f.output)
	if err != nil {
		return nil, err
	}
	layout, err := declcfg.ParseLayout(f.layout)
	if err != nil {
		return nil, err
	}
	level, err := migrate.ParseLevel(f.migrateLevel)
	if err != nil {
		return nil, fmt.Errorf("--migrate-level: %w", err)
	}
	return []migrate.Option{
		migrate.WithLayout(layout),
		migrate.WithFormat(format),
		migrate.WithMigrateLevel(level),
		migrate.WithKeepDeprecated(f.keepDeprecated),
		migrate.WithForce(f.force),
		migrate.WithDropInvalidRelatedImages(f.dropInvalidRelatedImages),
		migrate.WithDropInvalidBundles(f.dropInvalidBundles),
	}, nil
}

// levelNames lists the migrate levels for flag help.
func levelNames() string {
	names := make([]string, len(migrate.MigrateLevels))
	for i, l := range migrate.MigrateLevels {
		names[i] = string(l)
	}
	return strings.Join(names, ", ")
}

// migrateBudget is migrate's collector budget: runtimetune.Migrate only
// for runs that hold nothing catalog-sized (no --verify, which serves
// both catalogs in process, and no --report-html, which keeps every
// package's graphs until the page is written), else none.
func migrateBudget(f *migrateFlags) runtimetune.Budget {
	if f.verify || f.reportHTML != "" {
		return runtimetune.Budget{}
	}
	return runtimetune.Migrate
}

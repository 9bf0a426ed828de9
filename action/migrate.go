package action

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// Migrate writes the catalog of a legacy sqlite index, or of a catalog
// image, as a declarative config directory: a database (a file, or an
// image's, preferred when the image has both, as opm does) is migrated
// by package migrate, all or nothing, showing the packages migrated
// through Env.Progress("migrating packages"); an image's declarative
// configs are validated and written out in Layout and Format.
type Migrate struct {
	Env
	// Input is the index file or image, Output the directory written;
	// Force replaces a non-empty Output.
	Input, Output string
	Force         bool
	// Want is what Input may be (zero: input.Either, and a bundle image
	// is an *input.BundleError).
	Want input.Want
	// Layout and Format are Output's (zero: opm's layout, JSON).
	Layout declcfg.Layout
	Format declcfg.Format
	// Options are the further options of a database's migration (level,
	// deprecated bundles kept, invalid content dropped, graphs).
	Options []migrate.Option
	// Prepare, if set, is called once Input is resolved as a database
	// (name is Input as messages name it: the image for an image's),
	// before it is migrated: it returns the migration to run instead of
	// migrate.Migrate (nil: that one) and options added to Options.
	Prepare func(ctx context.Context, name, dbPath string) (MigrateFunc, []migrate.Option, error)
	// V1Check adds to a database's report what OLM v1 does with each
	// converted package (Report.V1Check), checked as it is converted.
	V1Check bool
}

// MigrateFunc is migrate.Migrate or a variant of it (migrate.ToTemplate).
type MigrateFunc func(ctx context.Context, dbPath, outDir string, opts ...migrate.Option) (*migrate.Report, error)

// MigrateResult is what a Migrate did: the report of a database's
// migration (its Input the name of the database), or the name and
// counts of an image's declarative configs written out.
type MigrateResult struct {
	Report                      *migrate.Report
	Name                        string
	Packages, Channels, Bundles int
}

// Run resolves Input (pulling an image) and migrates or writes it. A
// database's migration that failed returns its report too.
func (m Migrate) Run(ctx context.Context) (MigrateResult, error) {
	release, err := m.lock(ctx, m.Output, strings.TrimPrefix(m.Input, image.LayoutPrefix))
	if err != nil {
		return MigrateResult{}, err
	}
	defer release()
	in, err := input.Resolve(ctx, m.Input, cmp.Or(m.Want, input.Either), m.pull(false), input.PreferSQLite())
	switch {
	case pulled(err):
		return MigrateResult{}, err
	case err != nil && m.Want == input.Catalog:
		return MigrateResult{}, fmt.Errorf("unpack: %w", err)
	case err != nil || in.Image == "":
		// A local argument is read by migrate itself, which reports
		// what it is not.
		if err == nil && in.Note != "" {
			m.log("note: " + in.Note)
		}
		return m.migrate(ctx, m.Input, m.Input)
	}
	defer in.Close()
	switch in.Kind {
	case input.KindBundle:
		return MigrateResult{}, &input.BundleError{Ref: in.Image, Image: true}
	case input.KindSQLite:
		return m.migrate(ctx, cmp.Or(m.imageName(), in.Image), in.Path)
	}
	return m.writeConfigs(ctx, cmp.Or(m.imageName(), in.Image), in.Path)
}

// imageName is how messages name an image input unpack pulled: as given.
func (m Migrate) imageName() string {
	if m.Want == input.Catalog {
		return m.Input
	}
	return ""
}

// migrate migrates database dbPath, named name, to Output.
func (m Migrate) migrate(ctx context.Context, name, dbPath string) (MigrateResult, error) {
	run := MigrateFunc(migrate.Migrate)
	opts := append([]migrate.Option{
		migrate.WithLayout(cmp.Or(m.Layout, declcfg.LayoutOPM)), migrate.WithFormat(cmp.Or(m.Format, declcfg.FormatJSON)),
		migrate.WithForce(m.Force)}, m.Options...)
	if m.Prepare != nil {
		fn, extra, err := m.Prepare(ctx, name, dbPath)
		if err != nil {
			return MigrateResult{}, err
		}
		if fn != nil {
			run = fn
		}
		opts = append(opts, extra...)
	}
	var v1 *v1Reports
	if m.V1Check {
		v1 = &v1Reports{ctx: ctx, catalog: name}
		opts = append(opts, migrate.WithPackageGraphs(v1.add))
	}
	if m.Progress != nil {
		var bar interface{ Add(int64) }
		p := m.Progress("migrating packages")
		opts = append(opts, migrate.WithProgress(func(_, total int) {
			if bar == nil {
				p.Start(int64(total))
				bar = p
			}
			bar.Add(1)
		}))
		defer func() {
			if bar != nil {
				p.Done()
			}
		}()
	}
	rep, err := run(ctx, dbPath, m.Output, opts...)
	if rep != nil {
		rep.Input = name
		if v1 != nil {
			rep.V1Check = v1.sorted()
		}
	}
	return MigrateResult{Report: rep}, err
}

// writeConfigs writes the declarative configs of image ref (in dir) to
// Output, as opm migrate does of a file-based catalog image.
func (m Migrate) writeConfigs(ctx context.Context, ref, dir string) (MigrateResult, error) {
	cfg, err := declcfg.LoadDir(ctx, dir)
	if err == nil {
		_, err = model.FromDeclcfg(cfg)
	}
	if err != nil {
		return MigrateResult{}, fmt.Errorf("image %s: %w", ref, err)
	}
	err = declcfg.WriteDir(cfg, m.Output, declcfg.WithLayout(cmp.Or(m.Layout, declcfg.LayoutOPM)),
		declcfg.WithFormat(cmp.Or(m.Format, declcfg.FormatJSON)), declcfg.WithForce(m.Force), declcfg.WithOnAbandonedRemoved(m.log))
	if err != nil {
		return MigrateResult{}, err
	}
	return MigrateResult{Name: ref, Packages: len(cfg.Packages), Channels: len(cfg.Channels), Bundles: len(cfg.Bundles)}, nil
}

// ToTemplate is the migration of a database to templates of type t
// (migrate.ToTemplate), the MigrateFunc a Migrate.Prepare returns for
// them. verify, if set, checks the written templates before they are
// committed (VerifyTemplates.Run on their directory, its error worded by
// the caller); the note of a check that passed goes into the report.
func ToTemplate(t template.Type, verify func(ctx context.Context, dir string) (VerifyTemplatesResult, error)) MigrateFunc {
	return func(ctx context.Context, db, out string, opts ...migrate.Option) (*migrate.Report, error) {
		var note string
		if verify != nil {
			opts = append(opts, migrate.WithBeforeCommit(func(ctx context.Context, dir string) error {
				res, err := verify(ctx, dir)
				note = res.Note
				return err
			}))
		}
		rep, err := migrate.ToTemplate(ctx, db, out, t, opts...)
		if rep != nil && note != "" {
			rep.Notes = append(rep.Notes, migrate.Finding{Kind: migrate.NoteTemplatesVerified, Detail: note})
		}
		return rep, err
	}
}

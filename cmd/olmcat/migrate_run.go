//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/reportfile"
	"github.com/operator-catalog/olmcat/internal/runtimetune"
	"github.com/operator-catalog/olmcat/migrate"
)

// How migrate and unpack run action.Migrate: the hooks the flags ask
// for, and what they print and write of a database's migration beside
// the catalog (the summary on stderr, the report files).

// run migrates (or, for a declarative config image, writes out) arg to
// outDir (action.Migrate) and prints the summary; want says what arg may
// be (input.Catalog: an image, as unpack has it).
func (f *migrateFlags) run(cmd *cobra.Command, arg, outDir string, want input.Want) error {
	stderr := cmd.ErrOrStderr()
	m := action.Migrate{Env: actionEnv(cmd, f.image, f.waitLock), Input: arg, Output: outDir, Force: f.force, Want: want, V1Check: f.v1Check}
	var err error
	if m.Options, err = f.options(); err != nil {
		return usageError(err)
	}
	// options checked both.
	m.Layout, _ = declcfg.ParseLayout(f.layout)
	m.Format, _ = declcfg.ParseFormat(f.output)
	var files migrateReports
	defer files.discard()
	if f.reportHTML != "" {
		files.graphs = report.NewMigrationGraphs()
		m.Options = append(m.Options, migrate.WithPackageGraphs(files.graphs.Add))
	}
	m.Prepare = func(ctx context.Context, name, dbPath string) (action.MigrateFunc, []migrate.Option, error) {
		runtimetune.Enter(ctx, migrateBudget(f))
		if err := files.open(f, outDir, name, dbPath); err != nil {
			return nil, nil, err
		}
		// No deprecation warning: it would tell the user to run this
		// very command.
		switch {
		case f.toTemplate != "":
			fn, err := f.templateMigrate(stderr, dbPath)
			return fn, nil, err
		case f.verify:
			return nil, []migrate.Option{migrate.WithBeforeCommit(verifyParity(stderr, dbPath))}, nil
		}
		return nil, nil, nil
	}
	res, err := m.Run(cmd.Context())
	var be *input.BundleError
	switch {
	case want == input.Either && errors.As(err, &be):
		return &exitError{code: exitInvalid, err: fmt.Errorf("migrate %s: this is a bundle image (label %s), not a catalog: "+
			"run olmcat render %s for its olm.bundle blob, or olmcat add <catalog-dir> %s to add it to a catalog", be.Ref, annotation.Package, be.Ref, be.Ref)}
	case res.Report != nil:
		return files.finish(stderr, res.Report, err)
	case err != nil && want == input.Catalog:
		return actionError(err, "unpack")
	case err != nil:
		return actionError(err, "migrate")
	}
	fmt.Fprintf(stderr, "wrote the declarative configs of %s to %s: %d packages, %d channels, %d bundles\n",
		res.Name, outDir, res.Packages, res.Channels, res.Bundles)
	return nil
}

// migrateReports are the report files of a migration (--report,
// --report-html) and the graphs the page draws.
type migrateReports struct {
	json, page *reportfile.File
	graphs     *report.MigrationGraphs
}

// open opens the report files the flags ask for, once the database is
// known (a report file may not be an input).
func (r *migrateReports) open(f *migrateFlags, outDir, name, dbPath string) error {
	var err error
	if f.report != "" {
		if r.json, err = openReportFile(f.report, outDir, f.force, name, dbPath); err != nil {
			return usageError(err)
		}
	}
	if f.reportHTML != "" {
		if r.page, err = openReportFile(f.reportHTML, outDir, f.force, name, dbPath); err != nil {
			return usageError(err)
		}
	}
	return nil
}

// finish prints the summary of the migration's report rep (which says
// whether the output was written) and writes the report files.
func (r *migrateReports) finish(stderr io.Writer, rep *migrate.Report, err error) error {
	report.NameRemedies(rep, err)
	report.WriteMigrationSummary(stderr, rep, err == nil)
	if rep.V1Check != nil {
		report.WriteMigrationV1Summary(stderr, rep)
	}
	if err != nil {
		err = partialWrite{err}
	}
	if r.json != nil {
		if werr := r.json.WriteJSON(rep); werr != nil {
			return partialWrite{errors.Join(err, werr)}
		}
	}
	if r.page != nil {
		if werr := r.page.Write(func(w io.Writer) error { return report.WriteMigration(w, rep, r.graphs) }); werr != nil {
			return partialWrite{errors.Join(err, werr)}
		}
	}
	return err
}

// discard removes the report files not written.
func (r *migrateReports) discard() { r.json.Discard(); r.page.Discard() }

//go:build !slim

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// migrateFunc is migrate.Migrate or a variant with its signature.
type migrateFunc func(ctx context.Context, dbPath, outDir string, opts ...migrate.Option) (*migrate.Report, error)

// templateMigrate is the migration of --to-template: templates instead
// of the catalog; with --verify they are rendered back (bundle images
// pulled) and the result must be identical (parity --strict) to the
// migrated catalog, which the report then notes.
func (f *migrateFlags) templateMigrate(stderr io.Writer, dbPath string) (migrateFunc, error) {
	t, err := template.ParseType(f.toTemplate)
	if err != nil || t == template.TypeSubstitutes {
		return nil, usageError(fmt.Errorf("--to-template %q: want basic or semver", f.toTemplate))
	}
	var extra []migrate.Option
	var note string
	if f.verify {
		base, err := f.options()
		if err != nil {
			return nil, usageError(err)
		}
		render, err := f.image.bundleRenderer(f.migrateLevel == string(migrate.MigrateLevelCSVMetadata), stderr)
		if err != nil {
			return nil, err
		}
		extra = append(extra, migrate.WithBeforeCommit(func(ctx context.Context, dir string) error {
			var err error
			note, err = verifyTemplates(ctx, stderr, dbPath, dir, base, render)
			return err
		}))
	}
	return func(ctx context.Context, db, out string, opts ...migrate.Option) (*migrate.Report, error) {
		rep, err := migrate.ToTemplate(ctx, db, out, t, append(opts, extra...)...)
		if rep != nil && note != "" {
			rep.Notes = append(rep.Notes, migrate.Finding{Kind: migrate.NoteTemplatesVerified, Detail: note})
		}
		return rep, err
	}, nil
}

// verifyTemplates migrates the database into a scratch directory,
// renders every template of dir back into another one and compares the
// two with parity --strict. It returns the sentence for the report.
func verifyTemplates(ctx context.Context, stderr io.Writer, dbPath, dir string, opts []migrate.Option, render template.BundleRenderer) (string, error) {
	scratch, err := scratchDir(stderr, "olmcat-verify-templates-")
	if err != nil {
		return "", fmt.Errorf("verify: %w", err)
	}
	defer scratch.Remove()
	migrated, rendered := filepath.Join(scratch.Path, "migrated"), filepath.Join(scratch.Path, "rendered")
	if _, err := migrate.Migrate(ctx, dbPath, migrated, opts...); err != nil {
		return "", fmt.Errorf("verify: migrate: %w", err)
	}
	n, err := renderTemplatesDir(ctx, stderr, dir, rendered, render)
	if err != nil {
		return "", fmt.Errorf("verify: %w", err)
	}
	restored := &restoredManifests{}
	res, err := parity.Check(ctx, migrated, rendered, parity.WithMaxDiffs(verifyDiffs), parity.WithReport(restored),
		parity.WithProgress(&parityProgress{w: stderr, desc: "verifying parity"}))
	if err != nil {
		return "", fmt.Errorf("verify: %w", err)
	}
	var note string
	switch {
	case res.OK(true):
		note = fmt.Sprintf("rendering the %d templates back (bundle images pulled) gives a catalog that parity --strict finds identical to the migrated one: %d calls, no difference", n, res.Calls)
	case len(res.Graph) == 0 && restored.other == 0:
		note = fmt.Sprintf("rendering the %d templates back (bundle images pulled) gives a catalog that parity --strict finds identical to the migrated one but for manifests the index had cleared and the bundle images restore: %d calls, %d differences, each a CSV or object the migrated bundle lacks (see the missing-manifests repairs)", n, res.Calls, restored.restored)
	default:
		if err := report.WriteParityText(stderr, res, verifyDiffs, true); err != nil {
			return "", fmt.Errorf("verify: write result: %w", err)
		}
		return "", &exitError{code: exitInvalid, err: fmt.Errorf("verify: the rendered templates differ from the migrated catalog: %w", res.Err(true))}
	}
	fmt.Fprintln(stderr, "verified:", note)
	return note, nil
}

// restoredManifests counts the parity differences that are manifests the
// migrated side lacks (an index that cleared a bundle's CSV and objects,
// which rendering its image restores) apart from all others.
type restoredManifests struct{ restored, other int }

func (r *restoredManifests) Begin(parity.SideInfo, parity.SideInfo) error { return nil }
func (r *restoredManifests) End(*parity.Result) error                     { return nil }

// Diff implements parity.Report.
func (r *restoredManifests) Diff(d parity.Diff) error {
	if (d.Path == ".csvJson" && d.Left == "empty") || (strings.HasPrefix(d.Path, ".object[") && d.Left == "absent") {
		r.restored++
	} else {
		r.other++
	}
	return nil
}

// renderTemplatesDir renders each template file of dir, one package at a
// time, into the catalog directory out.
func renderTemplatesDir(ctx context.Context, stderr io.Writer, dir, out string, render template.BundleRenderer) (int, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	w, err := declcfg.NewDirWriter(out)
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	bar := newProgress(stderr, len(ents), "rendering templates back", false)
	defer bar.Done()
	n := 0
	for _, e := range ents {
		if e.IsDir() || !isTemplateFile(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(p)
		if err != nil {
			return n, err
		}
		cfg, err := template.Render(ctx, data, template.WithFile(e.Name()), template.WithRefRoot(dir), template.WithBundleRenderer(render))
		if err != nil {
			return n, fmt.Errorf("render %w", err)
		}
		if err := w.WritePackage(cfg); err != nil {
			return n, err
		}
		n++
		bar.Add(1)
	}
	return n, w.Commit()
}

func isTemplateFile(name string) bool {
	switch filepath.Ext(name) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

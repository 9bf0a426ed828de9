package action

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/internal/runtimetune"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// VerifyTemplates checks the templates a migration to templates wrote
// (migrate.ToTemplate): it migrates the sqlite index again into a
// scratch directory, renders every template back into another (bundle
// images pulled, as RenderTemplate does) and compares the two with
// parity, strictly. The one difference it lets pass is the manifests an
// index had cleared, which the bundle images restore.
type VerifyTemplates struct {
	Env
	// Database is the sqlite index, migrated with Options.
	Database string
	Options  []migrate.Option
	// Dir holds the templates, one file per package.
	Dir string
	// MigrateLevel is RenderTemplate's.
	MigrateLevel migrate.Level
	// MaxDiffs is how many differences the parity result keeps.
	MaxDiffs int
	// Differ, if set, gets the result of a check that found differences
	// before Run returns its error: the caller shows them.
	Differ func(*parity.Result) error
}

// VerifyTemplatesResult is what was verified.
type VerifyTemplatesResult struct {
	// Note is the sentence telling it, for the migration's report.
	Note string
}

// Run asks for the image options first, then migrates, renders and
// compares; it tells the note as it finds it.
func (v VerifyTemplates) Run(ctx context.Context) (VerifyTemplatesResult, error) {
	scratch, err := tempdir.Scratch("olmcat-verify-templates-", func(dir string) { v.log(AbandonedNote(dir)) })
	if err != nil {
		return VerifyTemplatesResult{}, fmt.Errorf("verify: %w", err)
	}
	defer scratch.Remove()
	render, done, err := v.bundleRenderer(v.MigrateLevel == migrate.MigrateLevelCSVMetadata, scratch.Path)
	if err != nil {
		return VerifyTemplatesResult{}, err
	}
	defer done()
	migrated, rendered := filepath.Join(scratch.Path, "migrated"), filepath.Join(scratch.Path, "rendered")
	if _, err := migrate.Migrate(ctx, v.Database, migrated, v.Options...); err != nil {
		return VerifyTemplatesResult{}, fmt.Errorf("verify: migrate: %w", err)
	}
	n, err := v.renderAll(ctx, rendered, render)
	if err != nil {
		return VerifyTemplatesResult{}, fmt.Errorf("verify: %w", err)
	}
	restored := &restoredManifests{}
	opts := []parity.Option{parity.WithMaxDiffs(v.MaxDiffs), parity.WithReport(restored)}
	if v.Progress != nil {
		opts = append(opts, parity.WithProgress(checkProgress{v.Progress("verifying parity")}))
	}
	// The check is the run's peak: its budget.
	runtimetune.Enter(ctx, runtimetune.VerifyTemplates)
	res, err := parity.Check(ctx, migrated, rendered, opts...)
	if err != nil {
		return VerifyTemplatesResult{}, fmt.Errorf("verify: %w", err)
	}
	var note string
	switch {
	case res.OK(true):
		note = fmt.Sprintf("rendering the %d templates back (bundle images pulled) gives a catalog that a strict parity check finds identical to the migrated one: %d calls, no difference", n, res.Calls)
	case len(res.Graph) == 0 && restored.other == 0:
		note = fmt.Sprintf("rendering the %d templates back (bundle images pulled) gives a catalog that a strict parity check finds identical to the migrated one but for manifests the index had cleared and the bundle images restore: %d calls, %d differences, each a CSV or object the migrated bundle lacks (see the missing-manifests repairs)", n, res.Calls, restored.restored)
	default:
		if v.Differ != nil {
			if err := v.Differ(res); err != nil {
				return VerifyTemplatesResult{}, fmt.Errorf("verify: write result: %w", err)
			}
		}
		return VerifyTemplatesResult{}, fmt.Errorf("verify: the rendered templates differ from the migrated catalog: %w", res.Err(true))
	}
	v.log("verified: " + note)
	return VerifyTemplatesResult{Note: note}, nil
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

// renderAll renders each template file of Dir, one package at a time,
// into the catalog directory out, and returns how many it rendered.
func (v VerifyTemplates) renderAll(ctx context.Context, out string, render template.BundleRenderer) (int, error) {
	ents, err := os.ReadDir(v.Dir)
	if err != nil {
		return 0, err
	}
	w, err := declcfg.NewDirWriter(out)
	if err != nil {
		return 0, err
	}
	defer w.Abort()
	step := func(int64) {}
	if v.Progress != nil {
		bar := v.Progress("rendering templates back")
		bar.Start(int64(len(ents)))
		defer bar.Done()
		step = bar.Add
	}
	n := 0
	for _, e := range ents {
		if e.IsDir() || !isTemplateFile(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(v.Dir, e.Name()))
		if err != nil {
			return n, err
		}
		cfg, err := template.Render(ctx, data, template.WithFile(e.Name()), template.WithRefRoot(v.Dir), template.WithBundleRenderer(render))
		if err != nil {
			return n, fmt.Errorf("render %w", err)
		}
		if err := w.WritePackage(cfg); err != nil {
			return n, err
		}
		n++
		step(1)
	}
	return n, w.Commit()
}

// isTemplateFile says whether a file of a templates directory is one.
func isTemplateFile(name string) bool {
	switch filepath.Ext(name) {
	case ".json", ".yaml", ".yml":
		return true
	}
	return false
}

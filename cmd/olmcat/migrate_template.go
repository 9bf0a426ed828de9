//go:build !slim

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// templateMigrate is the migration of --to-template: templates instead
// of the catalog (action.ToTemplate); with --verify they are rendered
// back (bundle images pulled) and the result must be identical (parity
// --strict) to the migrated catalog, which the report then notes.
func (f *migrateFlags) templateMigrate(stderr io.Writer, dbPath string) (action.MigrateFunc, error) {
	t, err := template.ParseType(f.toTemplate)
	if err != nil || t == template.TypeSubstitutes {
		return nil, usageError(fmt.Errorf("--to-template %q: want basic or semver", f.toTemplate))
	}
	if !f.verify {
		return action.ToTemplate(t, nil), nil
	}
	base, err := f.options()
	if err != nil {
		return nil, usageError(err)
	}
	// Asked for now: bad image flags fail before anything is migrated.
	imgOpts, err := f.image.actionOptions()
	if err != nil {
		return nil, err
	}
	v := action.VerifyTemplates{Env: action.Env{
		Log:          lineWriter(stderr),
		Progress:     func(desc string) image.Progress { return &pullProgress{w: stderr, desc: desc} },
		ImageOptions: func() ([]image.Option, error) { return imgOpts, nil },
	}, Database: dbPath, Options: base, MigrateLevel: migrate.Level(f.migrateLevel), MaxDiffs: verifyDiffs,
		Differ: func(res *parity.Result) error { return report.WriteParityText(stderr, res, verifyDiffs, true) }}
	return action.ToTemplate(t, func(ctx context.Context, dir string) (action.VerifyTemplatesResult, error) {
		v.Dir = dir
		res, err := v.Run(ctx)
		return res, actionError(err, "migrate")
	}), nil
}

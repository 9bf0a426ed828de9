package report

import (
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/declcfg/template"
	"github.com/operator-catalog/olmcat/internal/quote"
	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/migrate"
)

// WriteMigrationSummary writes what a migration did, one line per repair,
// drop and note, with one hint per kind; ok says whether it succeeded.
func WriteMigrationSummary(w io.Writer, rep *migrate.Report, ok bool) {
	c := rep.Counts
	if ok {
		fmt.Fprintf(w, "migrated %s (schema level %d) to %s: %d packages, %d channels, %d bundles, %d objects",
			quote.Name(rep.Input), rep.SchemaLevel, quote.Name(rep.Output), c.Packages, c.Channels, c.Bundles, c.Objects)
		if c.Deprecations > 0 {
			fmt.Fprintf(w, ", %d deprecations", c.Deprecations)
		}
		fmt.Fprintf(w, "; %d repairs, %d drops, %d notes\n", len(rep.Repairs), len(rep.Drops), len(rep.Notes))
	} else {
		fmt.Fprintf(w, "migration of %s (schema level %d) failed; nothing was written. %d repairs, %d drops, %d notes, %d problems\n",
			quote.Name(rep.Input), rep.SchemaLevel, len(rep.Repairs), len(rep.Drops), len(rep.Notes), len(rep.Problems))
	}
	writeRepairLines(w, rep.Repairs)
	writeFindingLines(w, "drop", rep.Drops)
	writeFindingLines(w, "note", rep.Notes)
	writeTemplateLines(w, rep.Templates)
}

// WriteConversionSummary writes the one-line summary of the repairs,
// drops and notes of a conversion that streams its catalog (render,
// graph), nothing when there were none.
func WriteConversionSummary(w io.Writer, verb, name string, rep *migrate.Report) {
	if rep != nil && len(rep.Repairs)+len(rep.Drops)+len(rep.Notes) > 0 {
		fmt.Fprintf(w, "%s %s: %d repairs, %d drops, %d notes; run olmcat migrate with --report for the details\n",
			verb, quote.Name(name), len(rep.Repairs), len(rep.Drops), len(rep.Notes))
	}
}

// maxRepairLines is how many repairs of one kind the summary lists; the
// report file (--report) has them all.
const maxRepairLines = 5

// writeRepairLines lists repairs grouped by kind, a few lines per kind.
func writeRepairLines(w io.Writer, repairs []legacy.Repair) {
	byKind := map[legacy.RepairKind][]legacy.Repair{}
	var kinds []legacy.RepairKind
	for _, r := range repairs {
		if byKind[r.Kind] == nil {
			kinds = append(kinds, r.Kind)
		}
		byKind[r.Kind] = append(byKind[r.Kind], r)
	}
	for _, k := range kinds {
		rs := byKind[k]
		fmt.Fprintf(w, "  repairs %s: %d\n", k, len(rs))
		for i, r := range rs {
			if i == maxRepairLines {
				fmt.Fprintf(w, "    ... %d more (see --report)\n", len(rs)-maxRepairLines)
				break
			}
			where := r.Table
			if r.Package != "" {
				where += ", package " + quote.Name(r.Package)
			}
			if r.Bundle != "" {
				where += ", bundle " + quote.Name(r.Bundle)
			}
			fmt.Fprintf(w, "    %s: %s\n", where, r.Detail)
		}
	}
}

func writeFindingLines(w io.Writer, label string, fs []migrate.Finding) {
	hinted := map[migrate.Kind]bool{}
	for _, f := range fs {
		fmt.Fprintf(w, "  %s %s\n", label, f)
	}
	for _, f := range fs {
		if !hinted[f.Kind] && f.Hint != "" {
			hinted[f.Kind] = true
			fmt.Fprintf(w, "  hint (%s): %s\n", f.Kind, f.Hint)
		}
	}
}

// writeTemplateLines lists the templates written: counts per type and the
// packages that fell back to basic, with the reason.
func writeTemplateLines(w io.Writer, ts []migrate.TemplateFinding) {
	if len(ts) == 0 {
		return
	}
	count := map[template.Type]int{}
	for _, t := range ts {
		count[t.Type]++
	}
	fmt.Fprintf(w, "  templates: %d semver, %d basic\n", count[template.TypeSemver], count[template.TypeBasic])
	for _, t := range ts {
		if t.Reason != "" {
			fmt.Fprintf(w, "  basic %s (not expressible as semver, %s): %s\n", quote.Name(t.File), t.Reason, t.Detail)
		}
	}
}

package report

import (
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
	"github.com/operator-catalog/olmcat/migrate"
)

// MigrationGraphs collects every package's upgrade graphs during a
// migration, before (legacy database) and after (declarative config),
// with the changes marked. Only the graphs are kept, not the bundles, so
// it stays small. It is safe for concurrent use.
type MigrationGraphs struct {
	mu   sync.Mutex
	pkgs map[string]*packageGraphs
	errs []error
}

type packageGraphs struct {
	before, after *graph.Package
	changes       int
}

// NewMigrationGraphs returns an empty collection.
func NewMigrationGraphs() *MigrationGraphs {
	return &MigrationGraphs{pkgs: map[string]*packageGraphs{}}
}

// Add records one package's graphs; it has the signature of the callback
// of migrate.WithPackageGraphs.
func (m *MigrationGraphs) Add(before, after *declcfg.DeclarativeConfig) {
	bg, berr := graph.Build(before)
	ag, aerr := graph.Build(after)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, err := range []error{berr, aerr} {
		if err != nil {
			m.errs = append(m.errs, err)
			return
		}
	}
	pg := &packageGraphs{}
	name := ""
	if len(bg.Packages) > 0 {
		pg.before, name = bg.Packages[0], bg.Packages[0].Name
	}
	if len(ag.Packages) > 0 {
		pg.after, name = ag.Packages[0], ag.Packages[0].Name
	}
	if name == "" {
		return
	}
	pg.changes = graph.MarkChanges(pg.before, pg.after)
	m.pkgs[name] = pg
}

// WriteMigration writes the page of a migration: the summary counts, every
// problem, drop, repair and note with its reason, and per package the
// graphs before and after with dropped bundles and changed edges marked.
func WriteMigration(w io.Writer, rep *migrate.Report, graphs *MigrationGraphs) error {
	if graphs == nil {
		graphs = NewMigrationGraphs()
	}
	graphs.mu.Lock()
	defer graphs.mu.Unlock()
	if len(graphs.errs) > 0 {
		return fmt.Errorf("build graphs: %w", graphs.errs[0])
	}
	title := "Migration of " + rep.Input
	return page(w, title, func(w io.Writer) error {
		writeMigrationSummary(w, rep)
		writeFindings(w, "problems", "Problems (nothing was written)", rep.Problems)
		writeFindings(w, "drops", "Dropped", rep.Drops)
		writeRepairs(w, rep)
		writeFindings(w, "notes", "Notes", rep.Notes)
		writeMigrationV1(w, rep)
		return writePackages(w, rep, graphs)
	})
}

func writeMigrationSummary(w io.Writer, rep *migrate.Report) {
	c := rep.Counts
	status := "migrated"
	if len(rep.Problems) > 0 {
		status = "failed: nothing was written"
	}
	fmt.Fprintf(w, "<section id=\"summary\"><h2>Summary</h2>\n<table>\n")
	row := func(id, label string, v any) {
		fmt.Fprintf(w, "<tr><th>%s</th><td id=\"%s\" class=\"n\">%s</td></tr>\n", esc(label), id, esc(fmt.Sprint(v)))
	}
	row("input", "input", rep.Input)
	row("output", "output", rep.Output)
	row("status", "status", status)
	row("schema-level", "schema level", rep.SchemaLevel)
	row("migrate-level", "migrate level", rep.MigrateLevel)
	row("count-packages", "packages", c.Packages)
	row("count-channels", "channels", c.Channels)
	row("count-bundles", "bundles", c.Bundles)
	row("count-objects", "objects", c.Objects)
	row("count-deprecations", "deprecations", c.Deprecations)
	row("count-repairs", "repairs", len(rep.Repairs))
	row("count-drops", "drops", len(rep.Drops))
	row("count-notes", "notes", len(rep.Notes))
	row("count-problems", "problems", len(rep.Problems))
	fmt.Fprint(w, "</table></section>\n")
}

// writeFindings lists findings as a table, one row each with its reason
// and hint.
func writeFindings(w io.Writer, id, title string, fs []migrate.Finding) {
	if len(fs) == 0 {
		return
	}
	class := map[string]string{"problems": "problem", "drops": "drop", "notes": "note"}[id]
	fmt.Fprintf(w, "<section id=\"%s\"><h2>%s (%d)</h2>\n<table>\n<tr><th>kind</th><th>package</th><th>channel</th><th>bundle</th><th>field</th><th>value</th><th>reason</th><th>what to do</th></tr>\n", id, esc(title), len(fs))
	for _, f := range fs {
		fmt.Fprintf(w, "<tr class=\"%s\" data-package=\"%s\" data-bundle=\"%s\" data-kind=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			class, esc(f.Package), esc(f.Bundle), esc(string(f.Kind)), esc(string(f.Kind)), esc(f.Package), esc(f.Channel), esc(f.Bundle), esc(f.Field), esc(f.Value), esc(f.Detail), esc(f.Hint))
	}
	fmt.Fprint(w, "</table></section>\n")
}

func writeRepairs(w io.Writer, rep *migrate.Report) {
	if len(rep.Repairs) == 0 {
		return
	}
	fmt.Fprintf(w, "<section id=\"repairs\"><h2>Repairs (%d)</h2>\n<table>\n<tr><th>kind</th><th>table</th><th>package</th><th>bundle</th><th>what was found and done</th></tr>\n", len(rep.Repairs))
	for _, r := range rep.Repairs {
		attr := ""
		if r.Package != "" {
			attr = fmt.Sprintf(" data-package=\"%s\"", esc(r.Package))
		}
		fmt.Fprintf(w, "<tr class=\"repair\"%s data-kind=\"%s\"><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>\n",
			attr, esc(string(r.Kind)), esc(string(r.Kind)), esc(r.Table), esc(r.Package), esc(r.Bundle), esc(r.Detail))
	}
	fmt.Fprint(w, "</table></section>\n")
}

// writePackages writes one collapsed section per package with its drops
// and graphs.
func writePackages(w io.Writer, rep *migrate.Report, graphs *MigrationGraphs) error {
	drops := map[string]int{}
	names := map[string]bool{}
	for name := range graphs.pkgs {
		names[name] = true
	}
	for _, f := range rep.Drops {
		drops[f.Package]++
		if f.Package != "" {
			names[f.Package] = true
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	fmt.Fprintf(w, "<section id=\"packages\"><h2>Packages (%d)</h2>\n", len(sorted))
	for _, name := range sorted {
		pg := graphs.pkgs[name]
		fmt.Fprintf(w, "<details class=\"package\" data-package=\"%s\"><summary>%s", esc(name), esc(name))
		if n := drops[name]; n > 0 {
			fmt.Fprintf(w, "<span class=\"badge drop\">%d dropped</span>", n)
		}
		if pg != nil && pg.changes > 0 {
			fmt.Fprintf(w, "<span class=\"badge change\">%d graph changes</span>", pg.changes)
		}
		if n := findings(pg); n > 0 {
			fmt.Fprintf(w, "<span class=\"badge problem\">%d graph findings after</span>", n)
		}
		fmt.Fprint(w, "</summary>\n")
		if err := writePackageGraphs(w, pg); err != nil {
			return err
		}
		fmt.Fprint(w, "</details>\n")
	}
	_, err := fmt.Fprint(w, "</section>\n")
	return err
}

func writePackageGraphs(w io.Writer, pg *packageGraphs) error {
	if pg == nil {
		fmt.Fprint(w, "<p>No graph: the package has no channel.</p>\n")
		return nil
	}
	draw := func(class, title string, p *graph.Package) error {
		if p == nil {
			fmt.Fprintf(w, "<div class=\"graph %s\"><h3>%s</h3><p>none</p></div>\n", class, esc(title))
			return nil
		}
		svg, err := svgOf(&graph.Graph{Packages: []*graph.Package{p}})
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "<div class=\"graph %s\"><h3>%s</h3>%s</div>\n", class, esc(title), svg)
		return nil
	}
	if pg.changes == 0 {
		return draw("after unchanged", "after (declarative config): the same graph as the legacy database", pg.after)
	}
	if err := draw("before", "before (legacy database)", pg.before); err != nil {
		return err
	}
	return draw("after", "after (declarative config)", pg.after)
}

// findings counts the graph findings of a package's converted graphs.
func findings(pg *packageGraphs) int {
	if pg == nil || pg.after == nil {
		return 0
	}
	n := 0
	for _, c := range pg.after.Channels {
		n += len(c.Findings)
	}
	return n
}

package migrate

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/template"
)

// TemplateFinding is the template written for one package: its file
// (relative to the output directory), its type and, when it fell back to
// basic from semver, why.
type TemplateFinding struct {
	Package string                  `json:"package"`
	File    string                  `json:"file"`
	Type    template.Type           `json:"type"`
	Reason  template.FallbackReason `json:"reason,omitempty"`
	Detail  string                  `json:"detail,omitempty"`
}

// ToTemplate converts the legacy index database at dbPath as Migrate does
// and writes, instead of the catalog, one template per package to
// outDir/<package>.<json|yaml> (the WithFormat option): the template that
// renders back to the package's catalog (template.FromPackage). With t
// TypeSemver, packages the semver template cannot express exactly get a
// basic template, listed with the reason in the report's Templates. Like
// Migrate it streams package by package and writes nothing unless every
// package converted; WithBeforeCommit sees the templates' directory.
func ToTemplate(ctx context.Context, dbPath, outDir string, t template.Type, opts ...Option) (*Report, error) {
	if t != template.TypeBasic && t != template.TypeSemver {
		return nil, fmt.Errorf("cannot write %s templates (basic or semver)", t)
	}
	var mu sync.Mutex
	var found []TemplateFinding
	rep, err := migrateTo(ctx, dbPath, outDir, opts, func(w *declcfg.DirWriter, res *packageResult) error {
		f, err := writeTemplate(w, res.cfg, t)
		if err != nil {
			return err
		}
		mu.Lock()
		found = append(found, f)
		mu.Unlock()
		return nil
	})
	slices.SortFunc(found, func(a, b TemplateFinding) int { return cmp.Compare(a.Package, b.Package) })
	if rep != nil {
		rep.Templates = found
	}
	return rep, err
}

// writeTemplate writes the template of one package into the writer's
// directory. What it returns is copied out of the package's catalog,
// which is recycled once the write returns.
func writeTemplate(w *declcfg.DirWriter, cfg *declcfg.DeclarativeConfig, t template.Type) (TemplateFinding, error) {
	d, err := template.FromPackage(cfg, t)
	if err != nil {
		return TemplateFinding{}, err
	}
	format := declcfg.FormatJSON
	if w.Format() == declcfg.FormatYAML {
		format = declcfg.FormatYAML
	}
	name := declcfg.PathElement(d.Package) + "." + format.Ext()
	fh, err := os.OpenFile(filepath.Join(w.Dir(), name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return TemplateFinding{}, fmt.Errorf("write template of package %s: %w", d.Package, err)
	}
	bw := bufio.NewWriterSize(fh, 64*1024)
	err = d.Write(bw, format)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return TemplateFinding{}, fmt.Errorf("write template of package %s: %w", d.Package, err)
	}
	return TemplateFinding{Package: strings.Clone(d.Package), File: name, Type: d.Type, Reason: d.Reason, Detail: strings.Clone(d.Detail)}, nil
}

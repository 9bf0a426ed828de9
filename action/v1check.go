package action

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/v1check"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// V1Check reports, package by package, whether OLM v1 (operator-controller
// v1.11.0, a default ClusterExtension) installs what catalogs offer, as
// package declcfg/v1check tells: each catalog (a declarative config
// directory, a legacy sqlite index converted as Migrate converts it, an
// image of either, or what a catalogd server serves at its base URL) is
// read one package at a time, and only the reports are kept.
type V1Check struct {
	Env
	// Legacy is told of a legacy sqlite index read: before it is read,
	// and the report of its conversion (its repairs, drops and notes).
	Legacy Legacy
	// Catalogs are the catalogs, as ClusterCatalogs of equal priority.
	Catalogs []string
	// PullBundles pulls the image of a picked bundle whose CSV the
	// catalog does not carry, to read it.
	PullBundles bool
}

// V1CheckResult is the reports, by package name then in the order of
// Catalogs, and the catalogs that do not load.
type V1CheckResult struct {
	Reports []*v1check.Report
	// Unloadable are the catalogs that do not load, each with why:
	// catalogd would not serve them, which blocks every package.
	Unloadable []CatalogError
}

// CatalogError is a catalog that does not load.
type CatalogError struct {
	Catalog string
	Err     error
}

// Run reads every catalog and checks each package. Its error says that a
// catalog could not be read at all (no such file, a pull that failed).
func (c V1Check) Run(ctx context.Context) (V1CheckResult, error) {
	var res V1CheckResult
	var opts []v1check.Option
	if c.PullBundles {
		opts = append(opts, v1check.WithCSVFetcher(c.fetchCSV))
	}
	for _, ref := range c.Catalogs {
		if err := c.checkCatalog(ctx, ref, &res, opts); err != nil {
			return res, err
		}
	}
	slices.SortStableFunc(res.Reports, func(a, b *v1check.Report) int { return strings.Compare(a.Package, b.Package) })
	for i := 0; i < len(res.Reports); {
		j := i + 1
		for j < len(res.Reports) && res.Reports[j].Package == res.Reports[i].Package {
			j++
		}
		if j-i > 1 {
			v1check.Across(res.Reports[i:j])
		}
		i = j
	}
	for _, ce := range res.Unloadable {
		for _, r := range res.Reports {
			r.Add(v1check.RuleUnparsable, "", fmt.Sprintf("catalog %s does not load: %v", ce.Catalog, ce.Err), "")
		}
	}
	return res, nil
}

// checkCatalog adds the reports of the packages of catalog ref to res.
func (c V1Check) checkCatalog(ctx context.Context, ref string, res *V1CheckResult, opts []v1check.Option) error {
	local, release, err := c.fetchCatalogd(ctx, ref)
	if err != nil {
		return fmt.Errorf("v1-check %s: %w", ref, err)
	}
	defer release()
	src, err := openIndex(ctx, c.Env, c.Legacy, local, false)
	if err != nil {
		if pulled(err) {
			return err
		}
		return fmt.Errorf("v1-check %s: %w", ref, err)
	}
	defer src.Close()
	src.name = ref
	var bar interface {
		Add(int64)
		Done()
	}
	if c.Progress != nil {
		p := c.Progress("checking " + ref)
		p.Start(-1)
		bar = p
		defer p.Done()
	}
	err = src.each(ctx, nil, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		if pkg != "" {
			res.Reports = append(res.Reports, v1check.Check(ctx, ref, pkg, cfg, opts...))
		}
		if bar != nil {
			bar.Add(1)
		}
		return ctx.Err()
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	res.Unloadable = append(res.Unloadable, CatalogError{Catalog: ref, Err: err})
	return nil
}

// fetchCatalogd copies the catalog a catalogd server serves at ref (its
// /api/v1/all, bounded as catalogdhttp.Remote bounds it) into a
// declarative config directory in a scratch directory that release
// removes, and returns that directory; any other ref is returned as it
// is. The catalog is what OLM v1 reads, so it is checked as served.
func (c V1Check) fetchCatalogd(ctx context.Context, ref string) (local string, release func(), err error) {
	in, err := input.Classify(ref)
	if err != nil || in.Kind != input.KindCatalogd {
		return ref, func() {}, nil // what ref is, openIndex tells
	}
	dir, err := tempdir.Scratch("olmcat-v1check-", func(d string) { c.log(AbandonedNote(d)) })
	if err != nil {
		return "", nil, err
	}
	release = func() { _ = dir.Remove() }
	f, err := os.Create(filepath.Join(dir.Path, "catalog.json"))
	if err == nil {
		w := bufio.NewWriterSize(f, 256<<10)
		err = catalogdhttp.Remote{Base: in.Addr}.Source()(ctx, func(blob []byte, _ string, _ int) error {
			_, err := w.Write(blob)
			return err
		})
		err = errors.Join(err, w.Flush(), f.Close())
	}
	if err != nil {
		release()
		return "", nil, err
	}
	return dir.Path, release, nil
}

// fetchCSV pulls the image of bundle b and reads its CSV.
func (c V1Check) fetchCSV(ctx context.Context, b *declcfg.Bundle) (string, error) {
	if b.Image == "" {
		return "", errors.New("the bundle names no image")
	}
	in, err := c.resolve(ctx, b.Image, input.Bundle, true)
	if err != nil {
		return "", err
	}
	defer in.Close()
	if in.Kind != input.KindBundle {
		return "", fmt.Errorf("%s is not a bundle image", b.Image)
	}
	got, _, err := bundle.FromFS(os.DirFS(in.Path), bundle.WithImage(b.Image))
	if err != nil {
		return "", err
	}
	if got.CsvJSON == "" {
		return "", fmt.Errorf("%s holds no CSV", b.Image)
	}
	return got.CsvJSON, nil
}

// v1Reports collects the v1check reports of a migration's packages, as
// the workers convert them (concurrently).
type v1Reports struct {
	ctx     context.Context
	catalog string
	mu      sync.Mutex
	reports []*v1check.Report
}

// add checks a converted package; it has the signature of
// migrate.WithPackageGraphs' callback and keeps only the report.
func (v *v1Reports) add(_, after *declcfg.DeclarativeConfig) {
	pkg := declcfg.PackageName(after)
	if pkg == "" {
		return
	}
	r := v1check.Check(v.ctx, v.catalog, pkg, after)
	v.mu.Lock()
	defer v.mu.Unlock()
	v.reports = append(v.reports, r)
}

// sorted are the reports by package name.
func (v *v1Reports) sorted() []*v1check.Report {
	v.mu.Lock()
	defer v.mu.Unlock()
	slices.SortFunc(v.reports, func(a, b *v1check.Report) int { return strings.Compare(a.Package, b.Package) })
	return v.reports
}

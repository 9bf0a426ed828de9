package action

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// Add renders bundle images or bundle directories and adds them to
// their packages in the catalog directory Dir (indexop.Add, with opm
// v1.73's graph update modes). The whole result must be valid, or
// nothing is written; only the changed packages' folders are rewritten
// (declcfg.ReplacePackages). Dir's write lock is taken before it is
// read, so adds to one catalog run one at a time.
type Add struct {
	Env
	Dir     string
	Bundles []string
	// Mode is the graph update mode, parsed as indexop.ParseMode does;
	// "" is replaces.
	Mode        indexop.Mode
	EnableAlpha bool
	// CSVMetadata stores the bundles' olm.csv.metadata instead of their
	// objects.
	CSVMetadata bool
}

// AddResult is what Add changed: one line per change, the packages
// changed (sorted) and the number of bundles added.
type AddResult struct {
	Changes  []string
	Packages []string
	Bundles  int
}

// Run adds the bundles. The changes are in the result, not in the log:
// they are only true once written.
func (a Add) Run(ctx context.Context) (AddResult, error) {
	mode, err := parseMode(a.Mode, "Add.Mode")
	if err != nil {
		return AddResult{}, err
	}
	release, err := a.lock(ctx, a.Dir)
	if err != nil {
		return AddResult{}, err
	}
	defer release()
	swept, err := declcfg.RecoverCatalog(a.Dir)
	for _, s := range swept {
		a.log(s.String())
	}
	if err != nil {
		return AddResult{}, err
	}
	cfg, err := declcfg.LoadDir(ctx, a.Dir)
	if err != nil {
		return AddResult{}, err
	}
	byPkg := map[string][]indexop.NewBundle{}
	for _, arg := range a.Bundles {
		nb, err := loadBundle(ctx, a.Env, arg, a.CSVMetadata)
		if err != nil {
			return AddResult{}, err
		}
		byPkg[nb.Bundle.Package] = append(byPkg[nb.Bundle.Package], nb)
	}
	res := AddResult{Packages: slices.Sorted(maps.Keys(byPkg)), Bundles: len(a.Bundles)}
	groups := declcfg.SplitByPackage(cfg)
	for _, pkg := range res.Packages {
		out, changes, err := indexop.Add(pkg, groups[pkg], byPkg[pkg], indexop.WithMode(mode), indexop.WithEnableAlpha(a.EnableAlpha))
		if err != nil {
			return AddResult{}, fmt.Errorf("add: %w; nothing was written", err)
		}
		res.Changes = append(res.Changes, changes...)
		groups[pkg] = out
	}
	merged := &declcfg.DeclarativeConfig{}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		merged.Merge(groups[name])
	}
	if _, err := model.FromDeclcfg(merged); err != nil {
		return AddResult{}, fmt.Errorf("add: the catalog would not be valid; nothing was written: %w", err)
	}
	if err := declcfg.ReplacePackages(a.Dir, merged, res.Packages); err != nil {
		return AddResult{}, err
	}
	return res, nil
}

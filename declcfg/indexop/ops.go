package indexop

import (
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// The operations of opm's rm, prune and prune-stranded as Ops. Each one
// tells what it did through notes, one line per call (nil drops them),
// as it streams.

// RemoveOp drops the packages named (opm's rm). A name that is no
// package of the catalog is an error once every package was seen, or
// with permissive a note.
func RemoveOp(names []string, permissive bool, notes func(string)) Op {
	seen := map[string]bool{}
	return Op{
		Apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
			if pkg != "" && slices.Contains(names, pkg) {
				seen[pkg] = true
				say(notes, fmt.Sprintf("removed package %s (%d channels, %d bundles)", quote.Name(pkg), len(cfg.Channels), len(cfg.Bundles)))
				return nil, nil
			}
			return cfg, nil
		},
		Extra: func() ([]*declcfg.DeclarativeConfig, error) {
			for _, n := range names {
				if seen[n] {
					continue
				}
				err := fmt.Errorf("error deleting packages from database: error removing operator package %s: no package found for packagename %s", quote.Name(n), quote.Name(n))
				if !permissive {
					return nil, err
				}
				say(notes, fmt.Sprintf("permissive: %v", err))
			}
			return nil, nil
		},
	}
}

// PruneOp keeps only the packages named (opm's prune; names that are no
// package are ignored, as opm did, but told). The others are not read.
func PruneOp(keep []string, notes func(string)) Op {
	seen := map[string]bool{}
	pruned := func(pkg string) bool { return pkg != "" && !slices.Contains(keep, pkg) }
	return Op{
		Apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
			if !pruned(pkg) {
				seen[pkg] = true
				return cfg, nil
			}
			say(notes, fmt.Sprintf("pruned package %s", quote.Name(pkg)))
			return nil, nil
		},
		Unread: pruned,
		Extra: func() ([]*declcfg.DeclarativeConfig, error) {
			for _, k := range keep {
				if !seen[k] {
					say(notes, fmt.Sprintf("note: package %s is not in the catalog: nothing to keep", quote.Name(k)))
				}
			}
			return nil, nil
		},
	}
}

// PruneStrandedOp drops the bundles no channel holds (PruneStranded),
// and a package left with no blob.
func PruneStrandedOp(notes func(string)) Op {
	return Op{Apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
		if pkg == "" {
			return cfg, nil
		}
		out, dropped := PruneStranded(cfg)
		for _, d := range dropped {
			say(notes, d)
		}
		if len(out.Packages)+len(out.Channels)+len(out.Bundles)+len(out.Deprecations)+len(out.Others) == 0 {
			return nil, nil
		}
		return out, nil
	}}
}

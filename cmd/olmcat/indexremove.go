//go:build !slim

package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// packageList splits opm's comma lists again, drops empty names and
// duplicates.
func packageList(names []string) []string {
	var out []string
	for _, n := range names {
		for _, p := range strings.Split(n, ",") {
			if p = strings.TrimSpace(p); p != "" && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// removeOp drops the packages named (opm's rm). A name that is no
// package of the catalog is an error, or with permissive a warning.
func removeOp(names []string, permissive bool, stderr io.Writer) catalogOp {
	seen := map[string]bool{}
	return catalogOp{
		apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
			if pkg != "" && slices.Contains(names, pkg) {
				seen[pkg] = true
				fmt.Fprintf(stderr, "removed package %s (%d channels, %d bundles)\n", quote.Name(pkg), len(cfg.Channels), len(cfg.Bundles))
				return nil, nil
			}
			return cfg, nil
		},
		extra: func() ([]*declcfg.DeclarativeConfig, error) {
			for _, n := range names {
				if seen[n] {
					continue
				}
				err := fmt.Errorf("error deleting packages from database: error removing operator package %s: no package found for packagename %s", quote.Name(n), quote.Name(n))
				if !permissive {
					return nil, &exitError{code: exitInvalid, err: err}
				}
				fmt.Fprintf(stderr, "permissive: %v\n", err)
			}
			return nil, nil
		},
	}
}

// pruneOp keeps only the packages named (opm's prune; unknown names are
// ignored, as opm did, but said).
func pruneOp(keep []string, stderr io.Writer) catalogOp {
	seen := map[string]bool{}
	return catalogOp{
		apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
			if pkg == "" || slices.Contains(keep, pkg) {
				seen[pkg] = true
				return cfg, nil
			}
			fmt.Fprintf(stderr, "pruned package %s\n", quote.Name(pkg))
			return nil, nil
		},
		extra: func() ([]*declcfg.DeclarativeConfig, error) {
			for _, k := range keep {
				if !seen[k] {
					fmt.Fprintf(stderr, "note: package %s is not in the catalog: nothing to keep\n", quote.Name(k))
				}
			}
			return nil, nil
		},
	}
}

// pruneStrandedOp drops the bundles no channel holds.
func pruneStrandedOp(stderr io.Writer) catalogOp {
	return catalogOp{apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
		if pkg == "" {
			return cfg, nil
		}
		out, dropped := indexop.PruneStranded(cfg)
		for _, d := range dropped {
			fmt.Fprintln(stderr, d)
		}
		if len(out.Packages)+len(out.Channels)+len(out.Bundles)+len(out.Deprecations)+len(out.Others) == 0 {
			return nil, nil
		}
		return out, nil
	}}
}

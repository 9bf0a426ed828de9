//go:build !slim

package main

import (
	"io"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg/indexop"
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

// removeOp drops the packages named (opm's rm).
func removeOp(names []string, permissive bool, stderr io.Writer) catalogOp {
	return catalogOp{Op: indexop.RemoveOp(names, permissive, lineWriter(stderr))}
}

// pruneOp keeps only the packages named (opm's prune).
func pruneOp(keep []string, stderr io.Writer) catalogOp {
	return catalogOp{Op: indexop.PruneOp(keep, lineWriter(stderr))}
}

// pruneStrandedOp drops the bundles no channel holds.
func pruneStrandedOp(stderr io.Writer) catalogOp {
	return catalogOp{Op: indexop.PruneStrandedOp(lineWriter(stderr))}
}

//go:build !slim

package main

import (
	"slices"
	"strings"
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

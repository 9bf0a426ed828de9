package indexop

import (
	"maps"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// annotationSubstitutesFor is the CSV annotation naming the bundle a
// bundle substitutes for (a rebuild of it).
const annotationSubstitutesFor = "olm.substitutesFor"

// substitution is one bundle and every bundle that substitutes for it,
// directly or along a chain of olm.substitutesFor: opm ordered
// competing substitutes by version, each substituting for the one
// below it, so the chain is the substituted bundle followed by its
// substitutes by version, the last one the latest.
type substitution struct {
	base    string  // the substituted bundle (it may not be in the package)
	members []*node // its substitutes, lowest version first
}

func (s *substitution) latest() *node { return s.members[len(s.members)-1] }

// names are base and the members but the latest, latest first.
func (s *substitution) names() []string {
	out := []string{}
	for i := len(s.members) - 2; i >= 0; i-- {
		out = append(out, s.members[i].name)
	}
	return append(out, s.base)
}

// substitute applies the olm.substitutesFor annotations of the package
// (opm's --enable-alpha) to the bundles' replaces and skips before the
// replaces mode computes the channels, as opm's addSubstitutesFor
// rewrote the database rows: a bundle replacing the substituted bundle
// (or an earlier substitute) replaces the latest substitute instead, a
// bundle skipping one of them skips the later ones too, and the latest
// substitute skips the others and inherits their skips. A substitution
// that involves a bundle being added is applied to every bundle of the
// package; one among existing bundles only to the bundles being added
// (the catalog holds its effect already).
func substitute(all []*node) error {
	subs, err := substitutions(all)
	if err != nil {
		return err
	}
	for _, s := range subs {
		touched := slices.ContainsFunc(all, func(n *node) bool {
			return n.isNew && (n.name == s.base || slices.Contains(s.members, n))
		})
		last, earlier := s.latest(), s.names()
		for _, n := range all {
			switch {
			case slices.Contains(s.members, n):
				if n == last && touched {
					inheritSkips(n, s, all)
				}
			case touched || n.isNew:
				if slices.Contains(earlier, n.replaces) {
					n.replaces = last.name
				}
				skipLater(n, s)
			}
		}
	}
	return nil
}

// inheritSkips gives the latest substitute the skips of the chain: each
// earlier bundle (nearest first, as opm appended them) and its skips,
// but for the bundle it replaces.
func inheritSkips(last *node, s *substitution, all []*node) {
	skips := slices.Clone(last.skips)
	add := func(names ...string) {
		for _, x := range names {
			if x != last.name && x != last.replaces && !slices.Contains(skips, x) {
				skips = append(skips, x)
			}
		}
	}
	for _, name := range s.names() {
		add(name)
		for _, n := range all {
			if n.name == name {
				add(n.skips...)
			}
		}
	}
	last.skips = skips
}

// skipLater makes n, which skips a bundle of the chain, skip every later
// substitute too, but for the one it replaces (skipping it would cut
// the replaces chain there, stranding what lies below).
func skipLater(n *node, s *substitution) {
	chain := append([]string{s.base}, memberNames(s.members)...)
	first := len(chain)
	for i, name := range chain {
		if slices.Contains(n.skips, name) {
			first = min(first, i)
		}
	}
	for _, name := range chain[min(first+1, len(chain)):] {
		if name != n.name && name != n.replaces && !slices.Contains(n.skips, name) {
			n.skips = append(n.skips, name)
		}
	}
}

func memberNames(ns []*node) []string {
	var out []string
	for _, n := range ns {
		out = append(out, n.name)
	}
	return out
}

// substitutions groups the package's bundles that substitute for
// another by the bundle at the end of their olm.substitutesFor chain,
// ordered by base name. A cycle, two substitutes of one version, or a
// substitute not newer than the bundle it substitutes for is an error
// (opm looped forever on cycles before v1.73 and, for the latter,
// computed a graph that depended on the order the bundles came in).
func substitutions(all []*node) ([]*substitution, error) {
	byName := map[string]*node{}
	for _, n := range all {
		byName[n.name] = n
		if !n.isNew {
			n.substitutesFor = existingSubstitutesFor(n.blob)
		}
	}
	groups := map[string]*substitution{}
	for _, n := range slices.SortedFunc(slices.Values(all), func(a, b *node) int { return strings.Compare(a.name, b.name) }) {
		if n.substitutesFor == "" {
			continue
		}
		base, err := substitutionBase(n, byName)
		if err != nil {
			return nil, err
		}
		if t := byName[n.substitutesFor]; t != nil && compareVersions(n.version, t.version) <= 0 {
			return nil, bundleErr(n, "bundle %s substitutes for %s but its version %s is not higher than %s", n.name, t.name, n.version, t.version)
		}
		if groups[base] == nil {
			groups[base] = &substitution{base: base}
		}
		groups[base].members = append(groups[base].members, n)
	}
	var out []*substitution
	for _, base := range slices.Sorted(maps.Keys(groups)) {
		s := groups[base]
		slices.SortStableFunc(s.members, func(a, b *node) int { return compareVersions(a.version, b.version) })
		for i := 1; i < len(s.members); i++ {
			if a, b := s.members[i-1], s.members[i]; compareVersions(a.version, b.version) == 0 {
				blame := b
				if !b.isNew {
					blame = a // name a bundle being added if one is
				}
				return nil, bundleErr(blame, "bundle %s: cannot determine latest substitution because of duplicate versions: bundles %s and %s (version %s) both substitute for %s", blame.name, a.name, b.name, b.version, base)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// substitutionBase follows n's olm.substitutesFor chain to the bundle
// that substitutes for none (or is not in the package).
func substitutionBase(n *node, byName map[string]*node) (string, error) {
	seen := map[string]bool{n.name: true}
	at := n.substitutesFor
	for {
		next := byName[at]
		if next == nil || next.substitutesFor == "" {
			return at, nil
		}
		if seen[at] {
			return "", bundleErr(n, "bundle %s: cyclic substitutesFor chain detected involving %q", n.name, at)
		}
		seen[at] = true
		at = next.substitutesFor
	}
}

// existingSubstitutesFor reads the annotation of a bundle already in the
// catalog: from its CSV, or from its olm.csv.metadata property.
func existingSubstitutesFor(b *declcfg.Bundle) string {
	if b.CsvJSON != "" {
		if csv, err := manifest.ParseCSV([]byte(b.CsvJSON)); err == nil {
			return csv.Annotation(annotationSubstitutesFor)
		}
	}
	for _, p := range b.Properties {
		if p.Type != declcfg.PropertyCSVMetadata {
			continue
		}
		if m, err := declcfg.ParseCSVMetadataValue(p.Value); err == nil {
			return m.Annotations[annotationSubstitutesFor]
		}
	}
	return ""
}

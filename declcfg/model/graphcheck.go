package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// GraphEntry is one bundle of a channel as the upgrade-graph rules see it.
type GraphEntry struct {
	Name      string
	Replaces  string
	Skips     []string
	SkipRange string
	// Version is the bundle's version; HasVersion is false when it is
	// unknown (a skipRange then never matches the bundle).
	Version    semver.Version
	HasVersion bool
}

// GraphFindingKind names one upgrade-graph rule.
type GraphFindingKind string

// Upgrade-graph findings. The first group are errors (validation fails);
// the last group are warnings (opm serves such catalogs, but a person
// looking at the graph wants to know).
const (
	GraphEmptySkip          GraphFindingKind = "empty-skip"
	GraphInvalidSkipRange   GraphFindingKind = "invalid-skip-range"
	GraphNoHead             GraphFindingKind = "no-head"
	GraphMultipleHeads      GraphFindingKind = "multiple-heads"
	GraphCycle              GraphFindingKind = "cycle"
	GraphStranded           GraphFindingKind = "stranded"
	GraphMissingReplaces    GraphFindingKind = "missing-replaces"
	GraphMissingSkips       GraphFindingKind = "missing-skips"
	GraphUnmatchedSkipRange GraphFindingKind = "unmatched-skip-range"
)

// GraphFinding is one upgrade-graph problem of a channel.
type GraphFinding struct {
	Kind GraphFindingKind
	// Warning is true for findings that do not fail validation.
	Warning bool
	// Entry is the channel entry the finding is about, if one.
	Entry string
	// Nodes are the bundles involved: the heads, the cycle path, the
	// stranded bundles, or the absent bundle an edge names.
	Nodes []string
	// Message says what is wrong, as validation reports it.
	Message string
}

// ChannelGraph is the analysed upgrade graph of one channel.
type ChannelGraph struct {
	// Head is the channel head, "" when there is none or several.
	Head string
	// SkipRangeTargets lists, per entry with a valid skipRange, the other
	// entries whose version the range matches (sorted by name).
	SkipRangeTargets map[string][]string
	// Findings are the graph problems, in the order validation reports
	// them: per entry (by name) first, then the head, cycle and stranded
	// rules, then the warnings.
	Findings []GraphFinding
}

// AnalyzeChannel applies the upgrade-graph rules to one channel's entries:
// skips hold no empty name and skipRanges parse; exactly one head (an entry
// nothing replaces or skips); no cycle on the replaces chain from the head;
// no stranded entry (neither on that chain nor skipped). As warnings, it
// reports replaces and skips naming bundles absent from the channel and
// skipRanges matching no other entry. Validation and the graph renderers
// both use it, so that pictures and text agree.
func AnalyzeChannel(entries []GraphEntry) ChannelGraph {
	sorted := make([]*GraphEntry, len(entries))
	byName := make(map[string]*GraphEntry, len(entries))
	for i := range entries {
		sorted[i] = &entries[i]
		byName[entries[i].Name] = &entries[i]
	}
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })

	g := ChannelGraph{SkipRangeTargets: map[string][]string{}}
	var warnings []GraphFinding
	incoming := map[string]int{}
	skipped := map[string]bool{}
	for _, e := range sorted {
		if e.Replaces != "" {
			incoming[e.Replaces]++
			if byName[e.Replaces] == nil {
				warnings = append(warnings, GraphFinding{Kind: GraphMissingReplaces, Warning: true, Entry: e.Name, Nodes: []string{e.Replaces},
					Message: fmt.Sprintf("entry %q replaces %q, which is not in the channel", e.Name, e.Replaces)})
			}
		}
		for _, s := range e.Skips {
			if s == "" {
				g.Findings = append(g.Findings, GraphFinding{Kind: GraphEmptySkip, Entry: e.Name,
					Message: fmt.Sprintf("entry %q: skips contains an empty name", e.Name)})
				continue
			}
			incoming[s]++
			skipped[s] = true
			if byName[s] == nil {
				warnings = append(warnings, GraphFinding{Kind: GraphMissingSkips, Warning: true, Entry: e.Name, Nodes: []string{s},
					Message: fmt.Sprintf("entry %q skips %q, which is not in the channel", e.Name, s)})
			}
		}
		if e.SkipRange == "" {
			continue
		}
		rng, err := semver.ParseRange(e.SkipRange)
		if err != nil {
			g.Findings = append(g.Findings, GraphFinding{Kind: GraphInvalidSkipRange, Entry: e.Name,
				Message: fmt.Sprintf("entry %q: invalid skipRange %q: %v", e.Name, e.SkipRange, err)})
			continue
		}
		var targets []string
		for _, t := range sorted {
			if t != e && t.HasVersion && rng(t.Version) {
				targets = append(targets, t.Name)
			}
		}
		if len(targets) == 0 {
			warnings = append(warnings, GraphFinding{Kind: GraphUnmatchedSkipRange, Warning: true, Entry: e.Name,
				Message: fmt.Sprintf("entry %q: skipRange %q matches no other bundle of the channel", e.Name, e.SkipRange)})
		}
		g.SkipRangeTargets[e.Name] = targets
	}
	g.Findings = append(g.Findings, chainFindings(sorted, byName, incoming, skipped, &g.Head)...)
	g.Findings = append(g.Findings, warnings...)
	return g
}

// chainFindings applies the head, cycle and stranded rules.
func chainFindings(sorted []*GraphEntry, byName map[string]*GraphEntry, incoming map[string]int, skipped map[string]bool, head *string) []GraphFinding {
	var heads []string
	for _, e := range sorted {
		if incoming[e.Name] == 0 {
			heads = append(heads, e.Name)
		}
	}
	switch len(heads) {
	case 0:
		return []GraphFinding{{Kind: GraphNoHead, Message: "no channel head found in graph"}}
	case 1:
		*head = heads[0]
	default:
		return []GraphFinding{{Kind: GraphMultipleHeads, Nodes: heads,
			Message: fmt.Sprintf("multiple channel heads found in graph: %s", joinNames(heads, ", "))}}
	}
	chain := map[string]bool{}
	var path []string
	for cur := byName[heads[0]]; cur != nil; {
		if chain[cur.Name] {
			path = append(path, cur.Name)
			return []GraphFinding{{Kind: GraphCycle, Nodes: path,
				Message: fmt.Sprintf("detected cycle in replaces chain of upgrade graph: %s", joinNames(path, " -> "))}}
		}
		chain[cur.Name] = true
		path = append(path, cur.Name)
		if cur.Replaces == "" || skipped[cur.Replaces] {
			break
		}
		cur = byName[cur.Replaces]
	}
	var stranded []string
	for _, e := range sorted {
		if !chain[e.Name] && !skipped[e.Name] {
			stranded = append(stranded, e.Name)
		}
	}
	if len(stranded) == 0 {
		return nil
	}
	return []GraphFinding{{Kind: GraphStranded, Nodes: stranded,
		Message: fmt.Sprintf("channel contains one or more stranded bundles: %s", joinNames(stranded, ", "))}}
}

// graphEntries is the channel's bundles as AnalyzeChannel sees them.
func (c *Channel) graphEntries() []GraphEntry {
	out := make([]GraphEntry, 0, len(c.Bundles))
	for _, b := range c.Bundles {
		out = append(out, GraphEntry{Name: b.Name, Replaces: b.Replaces, Skips: b.Skips, SkipRange: b.SkipRange,
			Version: b.Version, HasVersion: !b.Version.Equals(semver.Version{}) || hasZeroVersion(b)})
	}
	return out
}

// Warnings returns the upgrade-graph warnings of every channel (edges
// naming absent bundles, skipRanges matching nothing): what opm serves
// but a catalog owner wants to know. They never fail validation.
func (m *Model) Warnings() []Problem {
	var ps problems
	for _, pname := range sortedKeys(m.Packages) {
		mp := m.Packages[pname]
		for _, cname := range sortedKeys(mp.Channels) {
			mc := mp.Channels[cname]
			for _, f := range AnalyzeChannel(mc.graphEntries()).Findings {
				if f.Warning {
					ps.add(mc.Origin, declcfg.SchemaChannel, pname, cname, "%s", f.Message)
				}
			}
		}
	}
	return ps
}

// joinNames joins bundle names for a message, each quoted when it could
// forge output (internal/quote).
func joinNames(names []string, sep string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quote.Name(n)
	}
	return strings.Join(q, sep)
}

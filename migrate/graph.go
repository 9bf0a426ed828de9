package migrate

import (
	"fmt"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/legacy"
)

// edges is one bundle's membership in one channel, with the upgrade edges
// opm derived for it from channel_entry.
type edges struct {
	replaces string
	skips    []string
}

// channelEdges derives, per channel and bundle name, the replaces and skips
// edges exactly as opm's listBundlesQuery did from channel_entry:
//
//   - the real replaces chain is every entry reachable through
//     channel_entry.replaces from the entries at depth tip (the minimum
//     depth over the whole table, legacy.PackageData.TipDepth);
//   - a bundle's replaces in a channel is the greatest name among the
//     entries its real-chain entries replace;
//   - every other replaces link (the synthetic entries written for skips)
//     is a skip, in entry_id order, without deduplication;
//   - every name with an entry is a member of the channel, even one only
//     skipped (callers keep only names that have an operatorbundle row).
//
// Entries whose replaces names an entry_id that does not exist are
// returned in dangling (their edge is ignored, as opm's join ignored it).
func channelEdges(entries []legacy.ChannelEntry, tip int64) (out map[string]map[string]*edges, dangling []legacy.ChannelEntry) {
	byID := make(map[int64]*legacy.ChannelEntry, len(entries))
	for i := range entries {
		byID[entries[i].ID] = &entries[i]
	}
	real := make(map[int64]bool, len(entries))
	var queue []int64
	for i := range entries {
		if entries[i].Depth == tip {
			queue = append(queue, entries[i].ID)
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		if real[id] {
			continue
		}
		e, ok := byID[id]
		if !ok {
			continue
		}
		real[id] = true
		if e.Replaces != 0 {
			queue = append(queue, e.Replaces)
		}
	}

	ordered := make([]*legacy.ChannelEntry, 0, len(entries))
	for i := range entries {
		ordered = append(ordered, &entries[i])
	}
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].ID < ordered[j].ID })

	out = map[string]map[string]*edges{}
	for _, e := range ordered {
		ch := out[e.Channel]
		if ch == nil {
			ch = map[string]*edges{}
			out[e.Channel] = ch
		}
		m := ch[e.Bundle]
		if m == nil {
			m = &edges{}
			ch[e.Bundle] = m
		}
		if e.Replaces == 0 {
			continue
		}
		target, ok := byID[e.Replaces]
		if !ok {
			dangling = append(dangling, *e)
			continue
		}
		if real[e.ID] {
			if target.Bundle > m.replaces {
				m.replaces = target.Bundle
			}
		} else {
			m.skips = append(m.skips, target.Bundle)
		}
	}
	return out, dangling
}

// graphEntry is a channel entry as written: name and edges.
type graphEntry struct {
	name     string
	replaces string
	skips    []string
}

// graphProblem is one reason a channel's upgrade graph would not serve.
type graphProblem struct {
	kind    Kind
	bundles []string
	detail  string
}

// checkGraph applies the declarative config rules for a channel's upgrade
// graph: at least one bundle, then model.AnalyzeChannel's head, cycle and
// stranded rules (exactly one head, no cycle on the replaces chain from the
// head, every bundle on that chain or skipped), so that problems are named
// before writing with exactly the rules the final validation applies.
func checkGraph(entries []graphEntry) []graphProblem {
	if len(entries) == 0 {
		return []graphProblem{{kind: ProblemEmptyChannel, detail: "the channel has no bundle"}}
	}
	ges := make([]model.GraphEntry, len(entries))
	for i, e := range entries {
		ges[i] = model.GraphEntry{Name: e.name, Replaces: e.replaces, Skips: e.skips}
	}
	an := model.AnalyzeChannel(ges)
	var out []graphProblem
	for _, f := range an.Findings {
		switch f.Kind {
		case model.GraphNoHead:
			out = append(out, graphProblem{kind: ProblemNoHead, detail: "no channel head: every bundle is replaced or skipped by another"})
		case model.GraphMultipleHeads:
			out = append(out, graphProblem{kind: ProblemMultipleHeads, bundles: f.Nodes, detail: "multiple channel heads: " + nameList(f.Nodes)})
		case model.GraphCycle:
			out = append(out, graphProblem{kind: ProblemCycle, bundles: f.Nodes[len(f.Nodes)-1:], detail: "cycle in replaces chain: " + strings.Join(f.Nodes, " -> ")})
		case model.GraphStranded:
			out = append(out, graphProblem{kind: ProblemUnreachable, bundles: f.Nodes,
				detail: "neither on the replaces chain from head " + an.Head + " (which stops at the first skipped bundle) nor skipped by any bundle: " + nameList(f.Nodes)})
		}
	}
	return out
}

// nameList joins names, eliding all but the first ten.
func nameList(names []string) string {
	const max = 10
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
}

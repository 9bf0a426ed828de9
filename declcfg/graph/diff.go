package graph

// Marks MarkChanges sets on nodes and edges.
const (
	MarkDropped = "dropped"
	MarkAdded   = "added"
	MarkRemoved = "removed"
)

// Colours of the marks.
const (
	colorAdded   = "#38a169"
	colorRemoved = "#e53e3e"
)

// MarkChanges compares two graphs of the same package (before and after a
// migration) channel by channel: bundles of before missing from the same
// channel of after are marked dropped, edges of before missing from after
// removed, and nodes and edges of after missing from before added. Absent
// bundles (named by an edge only) are never marked. It returns the number
// of marked nodes and edges.
func MarkChanges(before, after *Package) (changes int) {
	afterCh := map[string]*Channel{}
	if after != nil {
		for _, c := range after.Channels {
			afterCh[c.Name] = c
		}
	}
	beforeCh := map[string]*Channel{}
	if before != nil {
		for _, c := range before.Channels {
			beforeCh[c.Name] = c
			changes += markSide(c, afterCh[c.Name], MarkDropped, MarkRemoved)
		}
	}
	if after != nil {
		for _, c := range after.Channels {
			changes += markSide(c, beforeCh[c.Name], MarkAdded, MarkAdded)
		}
	}
	return changes
}

// markSide marks the nodes and edges of c that other lacks.
func markSide(c, other *Channel, nodeMark, edgeMark string) int {
	present := map[string]bool{}
	type edgeKey struct {
		from, to string
		kind     EdgeKind
	}
	edges := map[edgeKey]bool{}
	if other != nil {
		for _, n := range other.Nodes {
			if !n.Absent {
				present[n.Name] = true
			}
		}
		for _, e := range other.Edges {
			edges[edgeKey{e.From, e.To, e.Kind}] = true
		}
	}
	n := 0
	for _, node := range c.Nodes {
		if !node.Absent && !present[node.Name] {
			node.Mark = nodeMark
			n++
		}
	}
	for i := range c.Edges {
		e := &c.Edges[i]
		if !edges[edgeKey{e.From, e.To, e.Kind}] {
			e.Mark = edgeMark
			n++
		}
	}
	return n
}

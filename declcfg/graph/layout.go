package graph

// The SVG layout is layered left to right by version: one column per node
// in version order (Channel.Nodes), and up to three rows: the replaces
// chain from the head, the other bundles of the channel, and the absent
// bundles edges name. An edge between two nodes of one row with no node
// between them is a straight line; every other edge is a curve through
// the gap above its target's row, which is reserved for them.

const (
	charWidth   = 6.6 // average advance of the 11px sans-serif font
	nodeHeight  = 38
	minNodeW    = 90
	maxNodeW    = 340
	colGap      = 36
	arcSpace    = 70 // vertical room for curves above each row
	margin      = 16
	titleHeight = 26
	lineHeight  = 16
)

// placed is a node's box in a channel block.
type placed struct {
	node *Node
	col  int
	row  int
	x, y float64 // top-left
}

// channelLayout is one channel block, in block coordinates.
type channelLayout struct {
	ch      *Channel
	nodeW   float64
	nodes   map[string]*placed
	order   []*placed // Channel.Nodes order
	rowsY   []float64 // top of each used row
	width   float64
	height  float64
	graphY0 float64 // top of the graph area (below the title)
}

// layoutChannel places the nodes of one channel.
func layoutChannel(ch *Channel) *channelLayout {
	l := &channelLayout{ch: ch, nodes: map[string]*placed{}}
	longest := 0
	for _, n := range ch.Nodes {
		longest = max(longest, len(n.Name), len(n.Version)+8)
	}
	l.nodeW = min(max(float64(longest)*charWidth+16, minNodeW), maxNodeW)

	chain := map[string]bool{}
	byName := map[string]declEntry{}
	for _, e := range ch.Entries {
		if _, dup := byName[e.Name]; !dup {
			byName[e.Name] = declEntry{replaces: e.Replaces}
		}
	}
	for cur := ch.Head; cur != "" && !chain[cur]; cur = byName[cur].replaces {
		if _, ok := byName[cur]; !ok {
			break
		}
		chain[cur] = true
	}
	var used [3]bool
	rowOf := func(n *Node) int {
		switch {
		case chain[n.Name] || (ch.Head == "" && !n.Absent):
			return 0
		case !n.Absent:
			return 1
		default:
			return 2
		}
	}
	for i, n := range ch.Nodes {
		p := &placed{node: n, col: i, row: rowOf(n)}
		used[p.row] = true
		l.nodes[n.Name] = p
		l.order = append(l.order, p)
	}
	// Compact the rows that are used into 0..k-1.
	var rowIndex [3]int
	k := 0
	for r := range used {
		rowIndex[r] = k
		if used[r] {
			k++
		}
	}
	l.graphY0 = titleHeight
	for r := 0; r < k; r++ {
		l.rowsY = append(l.rowsY, l.graphY0+arcSpace+float64(r)*(nodeHeight+arcSpace))
	}
	for _, p := range l.order {
		p.row = rowIndex[p.row]
		p.x = margin + float64(p.col)*(l.nodeW+colGap)
		p.y = l.rowsY[p.row]
	}
	l.width = margin*2 + float64(max(len(ch.Nodes), 1))*(l.nodeW+colGap) - colGap
	for _, f := range ch.Findings {
		l.width = max(l.width, margin*2+float64(len(f.Message)+9)*charWidth)
	}
	bottom := l.graphY0
	if k > 0 {
		bottom = l.rowsY[k-1] + nodeHeight
	}
	l.height = bottom + 12 + float64(len(ch.Findings))*lineHeight + margin
	return l
}

type declEntry struct{ replaces string }

// between says whether a node of row lies strictly between columns a and b.
func (l *channelLayout) between(row, a, b int) bool {
	if a > b {
		a, b = b, a
	}
	for _, p := range l.order {
		if p.row == row && p.col > a && p.col < b {
			return true
		}
	}
	return false
}

package parity

import (
	"container/heap"
	"slices"
	"sort"
	"sync"
)

// tally aggregates a check as its calls are compared: the statistics per
// RPC, the differences per rule and class, the differences the Result
// keeps (the first maxDiffs in report order), the graph differences, and
// the Reports, which see every difference once, in the order recorded.
type tally struct {
	mu      sync.Mutex
	res     *Result
	names   []string // the stats' names (RPCs, or BlobKinds), in report order
	stats   map[string]*RPCStats
	kept    diffHeap
	max     int // < 0: keep every difference
	reports []Report
	err     error // the reports' first error
}

func newTally(res *Result, names []string, maxDiffs int, reports []Report) *tally {
	t := &tally{res: res, names: names, stats: map[string]*RPCStats{}, max: maxDiffs, reports: reports}
	for _, rpc := range names {
		t.stats[rpc] = &RPCStats{RPC: rpc}
	}
	res.RulesSeen = map[string]int{}
	res.DiffCounts = map[Class]int{}
	return t
}

// worst returns the class a call with diffs counts as.
func worst(diffs []Diff) Class {
	w := Class("")
	for _, d := range diffs {
		if w != Loss {
			w = d.Class
		}
	}
	return w
}

// call counts one call of rpc whose differences weigh w.
func (t *tally) call(rpc string, w Class) {
	t.mu.Lock()
	defer t.mu.Unlock()
	st := t.stats[rpc]
	st.Calls++
	switch w {
	case "":
		st.Identical++
	case Benign:
		st.Benign++
	case Loss:
		st.Losses++
	}
}

// diffs records differences: counted, passed to the report, kept if
// among the first maxDiffs.
func (t *tally) diffs(diffs []Diff) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, d := range diffs {
		t.res.RulesSeen[d.Rule]++
		t.res.DiffCounts[d.Class]++
		for _, rep := range t.reports {
			if t.err == nil {
				t.err = rep.Diff(d)
			}
		}
		switch {
		case t.max == 0:
			continue
		case t.max < 0:
			t.kept = append(t.kept, d)
			continue
		}
		if t.kept.Len() == t.max && !diffBefore(d, t.kept[0]) {
			continue // not among the first max
		}
		heap.Push(&t.kept, d)
		if t.kept.Len() > t.max {
			heap.Pop(&t.kept)
		}
	}
}

// graph records upgrade graph differences and the channels compared.
func (t *tally) graph(diffs []GraphDiff, channels int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.res.Graph = append(t.res.Graph, diffs...)
	t.res.GraphChannels += channels
}

// finish fills the Result's statistics and totals and orders the kept
// differences.
func (t *tally) finish() {
	r := t.res
	r.Stats = nil
	for _, rpc := range t.names {
		r.Stats = append(r.Stats, *t.stats[rpc])
	}
	r.Calls, r.BenignCalls, r.LossCalls = 0, 0, 0
	for _, s := range r.Stats {
		r.Calls += s.Calls
		r.BenignCalls += s.Benign
		r.LossCalls += s.Losses
	}
	r.Diffs = append([]Diff(nil), t.kept...)
	sort.SliceStable(r.Diffs, func(i, j int) bool { return diffBefore(r.Diffs[i], r.Diffs[j]) })
	r.DiffsOmitted = r.DiffCounts[Loss] + r.DiffCounts[Benign] - len(r.Diffs)
}

// statNames are the names Stats count under: the RPCs of a check over
// the registry API, then the blob kinds of a check over catalogd's.
var statNames = append(slices.Clone(RPCs), BlobKinds...)

// rpcOrder ranks the stats' names as they are reported.
var rpcOrder = func() map[string]int {
	m := map[string]int{}
	for i, n := range statNames {
		m[n] = i
	}
	return m
}()

// diffBefore is the report order: losses first, then by RPC, request,
// path, and the answers.
func diffBefore(a, b Diff) bool {
	if a.Class != b.Class {
		return a.Class == Loss
	}
	if a.RPC != b.RPC {
		return rpcOrder[a.RPC] < rpcOrder[b.RPC]
	}
	if a.Request != b.Request {
		return a.Request < b.Request
	}
	if a.Path != b.Path {
		return a.Path < b.Path
	}
	if a.Left != b.Left {
		return a.Left < b.Left
	}
	return a.Right < b.Right
}

// diffHeap is a max-heap in report order: its root is the difference to
// drop first when only the first n are kept.
type diffHeap []Diff

func (h diffHeap) Len() int           { return len(h) }
func (h diffHeap) Less(i, j int) bool { return diffBefore(h[j], h[i]) }
func (h diffHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *diffHeap) Push(x any)        { *h = append(*h, x.(Diff)) }
func (h *diffHeap) Pop() any {
	old := *h
	d := old[len(old)-1]
	*h = old[:len(old)-1]
	return d
}

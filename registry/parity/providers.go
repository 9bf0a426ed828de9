package parity

import (
	"context"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// earlyProviders makes GetDefaultBundleThatProvides for the GVKs that the
// package's default channel heads provide (on either side), each once in
// the whole check (the first package to claim it), while the package is
// still what each server just read: made in catalogWide instead, each
// call reads its provider's package and manifests once more (on a
// 10,000-bundle index, every package a third time). A call is kept only
// when its comparison needs nothing a later package adds (see local); the
// others, and any that fail, are left for catalogWide to make. The
// differences are recorded there, in the order they always were.
func (r *checkRun) earlyProviders(ctx context.Context, cat *catalog, pkg string, idx [2]*sideIndex) {
	var calls []call
	for s := range 2 {
		p := cat.pkg(s, pkg)
		if p == nil {
			continue
		}
		head := idx[s].bundles[bkey{pkg, p.defaultChannel, headIn(p, p.defaultChannel)}]
		if head == nil {
			continue
		}
		for _, a := range head.GetProvidedApis() {
			g := manifest.GVK{Group: a.GetGroup(), Version: a.GetVersion(), Kind: a.GetKind()}
			if r.claimProvider(g) {
				calls = append(calls, call{rpc: RPCGetDefaultBundleThatProvides, gvk: g})
			}
		}
	}
	for _, c := range calls {
		select {
		case r.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		a, err := r.both(ctx, c)
		<-r.sem
		if err != nil || !local(a) {
			continue
		}
		r.keepEarly(c, compare(cat, c, a))
	}
}

// local reports whether the comparison of two GetDefaultBundleThatProvides
// answers is the same whenever it is made: both sides refused, or both
// named the same bundle (compared field by field, with nothing from the
// GetPackage answers of other packages). Only a refusal on one side or
// different bundles consult every package's heads.
func local(a [2]answer) bool {
	if a[0].err != nil || a[1].err != nil {
		return a[0].err != nil && a[1].err != nil
	}
	l, r := a[0].bundle, a[1].bundle
	return l.GetCsvName() == r.GetCsvName() && l.GetPackageName() == r.GetPackageName()
}

// claimProvider reports whether no package claimed g yet, and claims it.
func (r *checkRun) claimProvider(g manifest.GVK) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.providerClaimed[g] {
		return false
	}
	// Not the answer's strings: the key stays for the whole check.
	r.providerClaimed[manifest.GVK{Group: strings.Clone(g.Group), Version: strings.Clone(g.Version), Kind: strings.Clone(g.Kind)}] = true
	return true
}

// makeRest is makeAll for catalog-wide calls: a call made early (see
// earlyProviders) is not made again, its kept differences take its place.
func (r *checkRun) makeRest(ctx context.Context, cat *catalog, calls []call) ([][]Diff, error) {
	out := make([][]Diff, len(calls))
	var todo []call
	var at []int
	for i, c := range calls {
		if c.rpc == RPCGetDefaultBundleThatProvides && !c.probe {
			if packed, ok := r.takeEarly(c.gvk); ok {
				out[i] = unpackDiffs(c, packed)
				continue
			}
		}
		todo, at = append(todo, c), append(at, i)
	}
	diffs, err := r.makeAll(ctx, cat, todo)
	if err != nil {
		return nil, err
	}
	for j, i := range at {
		out[i] = diffs[j]
	}
	return out, nil
}

// keepEarly writes the differences of early call c to earlyFile, on
// disk like the ListBundles spills: held in memory from a package's turn
// to the end of the check, those of a thousand calls would add a few
// megabytes to the peak. A call whose write fails is not kept (it is made
// again in catalogWide).
func (r *checkRun) keepEarly(c call, diffs []Diff) {
	packed := packDiffs(c, diffs)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.earlyFile.WriteAt([]byte(packed), r.earlySize); err != nil {
		return
	}
	r.early[c.gvk] = spillSpan{off: r.earlySize, n: int64(len(packed))}
	r.earlySize += int64(len(packed))
}

// takeEarly returns and forgets the packed differences of the early call
// for g; false if none was kept or they cannot be read back.
func (r *checkRun) takeEarly(g manifest.GVK) (string, bool) {
	r.mu.Lock()
	sp, ok := r.early[g]
	delete(r.early, g)
	r.mu.Unlock()
	if !ok {
		return "", false
	}
	buf := make([]byte, sp.n)
	if _, err := r.earlyFile.ReadAt(buf, sp.off); err != nil {
		return "", false
	}
	return string(buf), true
}

// packDiffs encodes the differences of call c in one string, to be
// written to earlyFile: the RPC and request are the call's and the rule
// one of Rules almost always, so they are not repeated. Per difference: a
// flags byte (1: RPC and request are not c's, 2: the rule is not one of
// Rules), the rule's index in Rules or its three fields, then path, left
// and right, each string length-prefixed.
func packDiffs(c call, diffs []Diff) string {
	var b []byte
	req := c.request()
	for _, d := range diffs {
		var flags byte
		if d.RPC != c.rpc || d.Request != req {
			flags |= 1
		}
		rule := slices.IndexFunc(Rules, func(r Rule) bool {
			return r.Name == d.Rule && r.Class == d.Class && r.Explanation == d.Explanation
		})
		if rule < 0 {
			flags |= 2
		}
		b = append(b, flags)
		if flags&1 != 0 {
			b = appendString(appendString(b, d.RPC), d.Request)
		}
		if flags&2 != 0 {
			b = appendString(appendString(appendString(b, string(d.Class)), d.Rule), d.Explanation)
		} else {
			b = binary.AppendUvarint(b, uint64(rule))
		}
		b = appendString(appendString(appendString(b, d.Path), d.Left), d.Right)
	}
	return string(b)
}

// unpackDiffs decodes what packDiffs encoded for call c.
func unpackDiffs(c call, packed string) []Diff {
	var out []Diff
	req := c.request()
	for len(packed) > 0 {
		flags := packed[0]
		packed = packed[1:]
		d := Diff{RPC: c.rpc, Request: req}
		if flags&1 != 0 {
			d.RPC, packed = nextString(packed)
			d.Request, packed = nextString(packed)
		}
		if flags&2 != 0 {
			var class string
			class, packed = nextString(packed)
			d.Class = Class(class)
			d.Rule, packed = nextString(packed)
			d.Explanation, packed = nextString(packed)
		} else {
			i, n := binary.Uvarint([]byte(packed[:min(len(packed), binary.MaxVarintLen64)]))
			packed = packed[n:]
			d.Class, d.Rule, d.Explanation = Rules[i].Class, Rules[i].Name, Rules[i].Explanation
		}
		d.Path, packed = nextString(packed)
		d.Left, packed = nextString(packed)
		d.Right, packed = nextString(packed)
		out = append(out, d)
	}
	return out
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// nextString splits a length-prefixed string off the front of packed.
func nextString(packed string) (string, string) {
	n, k := binary.Uvarint([]byte(packed[:min(len(packed), binary.MaxVarintLen64)]))
	packed = packed[k:]
	return packed[:n], packed[n:]
}

// headIn returns the head of channel in p ("" if p has no such channel).
func headIn(p *packageHeads, channel string) string {
	for _, ch := range p.channels {
		if ch.name == channel {
			return ch.head
		}
	}
	return ""
}

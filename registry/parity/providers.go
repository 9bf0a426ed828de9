package parity

import (
	"bytes"
	"context"
	"encoding/gob"
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
			if diffs, ok := r.takeEarly(c.gvk); ok {
				out[i] = diffs
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
// megabytes to the peak. They are gob-encoded, which keeps every string's
// bytes as they were (JSON would replace invalid UTF-8). A call whose
// write fails is not kept (it is made again in catalogWide).
func (r *checkRun) keepEarly(c call, diffs []Diff) {
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(diffs); err != nil {
		return
	}
	off, err := r.earlyFile.Append(buf.Bytes())
	if err != nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.early[c.gvk] = spillSpan{off: off, n: int64(buf.Len())}
}

// takeEarly returns and forgets the differences of the early call for g;
// false if none were kept or they cannot be read back (the call is then
// made again).
func (r *checkRun) takeEarly(g manifest.GVK) ([]Diff, bool) {
	r.mu.Lock()
	sp, ok := r.early[g]
	delete(r.early, g)
	r.mu.Unlock()
	if !ok {
		return nil, false
	}
	var diffs []Diff
	sr, err := r.earlyFile.Section(sp.off, sp.n)
	if err == nil {
		err = gob.NewDecoder(sr).Decode(&diffs)
	}
	if err != nil {
		return nil, false
	}
	return diffs, true
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

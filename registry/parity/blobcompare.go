package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// blobCheck is a blob check in progress: each side's encoded catalog
// and its blobs sorted by key. Sorted lists rather than maps: at 40,000
// bundles the maps of both sides (and of their union) were most of the
// check's peak.
type blobCheck struct {
	sides [2]BlobSide
	snaps [2]*catalogdhttp.Snapshot
	list  [2][]sideBlob // each side's blobs in keyLess order
	pos   [2][]int32    // each side's index in list, by served position
	match []int32       // the right side's served position of each left blob, or -1
}

// sideBlob is one blob of a side: its key and its position in the
// served order.
type sideBlob struct {
	key blobKey
	id  int32
}

// blobPair is one key and where each side serves it (-1: not at all).
type blobPair struct {
	key blobKey
	ids [2]int32
}

func newBlobCheck(sides [2]BlobSide, snaps [2]*catalogdhttp.Snapshot) *blobCheck {
	bc := &blobCheck{sides: sides, snaps: snaps}
	for s, snap := range snaps {
		keys := snap.Keys()
		list := make([]sideBlob, len(keys))
		for i, k := range keys {
			key := blobKey{group: k.Package, schema: k.Schema, pkg: k.Package, name: k.Name}
			if k.Schema == BlobPackage {
				key.group = k.Name
			}
			list[i] = sideBlob{key: key, id: int32(i)}
		}
		// Blobs with the same schema, package and name are told apart
		// by their served order (nth).
		slices.SortFunc(list, func(a, b sideBlob) int {
			switch {
			case keyLess(a.key, b.key):
				return -1
			case keyLess(b.key, a.key):
				return 1
			}
			return int(a.id - b.id)
		})
		bc.pos[s] = make([]int32, len(list))
		for i := range list {
			if prev := list[max(i-1, 0)].key; i > 0 && prev.group == list[i].key.group && prev.schema == list[i].key.schema &&
				prev.pkg == list[i].key.pkg && prev.name == list[i].key.name {
				list[i].key.nth = prev.nth + 1
			}
			bc.pos[s][list[i].id] = int32(i)
		}
		bc.list[s] = list
	}
	bc.match = make([]int32, len(bc.list[0]))
	for i := range bc.match {
		bc.match[i] = -1
	}
	return bc
}

// eachGroup walks both sides' blobs together in keyLess order and calls
// fn with each package's blobs (the blobs of no package last, together),
// recording the matches for order.
func (bc *blobCheck) eachGroup(fn func([]blobPair) error) error {
	var i, j int
	var group []blobPair
	for i < len(bc.list[0]) || j < len(bc.list[1]) {
		p := blobPair{ids: [2]int32{-1, -1}}
		switch {
		case j == len(bc.list[1]) || i < len(bc.list[0]) && keyLess(bc.list[0][i].key, bc.list[1][j].key):
			p.key, p.ids[0] = bc.list[0][i].key, bc.list[0][i].id
			i++
		case i == len(bc.list[0]) || keyLess(bc.list[1][j].key, bc.list[0][i].key):
			p.key, p.ids[1] = bc.list[1][j].key, bc.list[1][j].id
			j++
		default:
			p.key, p.ids = bc.list[0][i].key, [2]int32{bc.list[0][i].id, bc.list[1][j].id}
			bc.match[p.ids[0]] = p.ids[1]
			i, j = i+1, j+1
		}
		if len(group) > 0 && group[0].key.group != p.key.group {
			if err := fn(group); err != nil {
				return err
			}
			group = group[:0]
		}
		group = append(group, p)
	}
	if len(group) > 0 {
		return fn(group)
	}
	return nil
}

// compareGroup compares the blobs of one group: each key is one "call"
// of its blob kind.
func (bc *blobCheck) compareGroup(pairs []blobPair) (*unitResult, error) {
	u := &unitResult{calls: make([]call, len(pairs)), diffs: make([][]Diff, len(pairs))}
	dropped, err := bc.droppedDeprecated(pairs)
	if err != nil {
		return nil, err
	}
	for i, p := range pairs {
		u.calls[i] = call{rpc: p.key.kind(), pkg: p.key.group}
		var blobs [2][]byte
		for s, id := range p.ids {
			if id < 0 {
				continue
			}
			var err error
			if blobs[s], err = bc.snaps[s].Blob(int(id)); err != nil {
				return nil, fmt.Errorf("%s: %w", bc.sides[s].Ref, err)
			}
		}
		diffs, err := bc.compareBlob(p.key, blobs, dropped)
		if err != nil {
			return nil, err
		}
		u.diffs[i] = diffs
	}
	return u, nil
}

// compareBlob compares one blob as both sides serve it (nil where a side
// does not).
func (bc *blobCheck) compareBlob(k blobKey, blobs [2][]byte, dropped map[string]bool) ([]Diff, error) {
	diff := func(path, l, r string, rule Rule) Diff {
		return Diff{RPC: k.kind(), Request: k.request(), Path: path, Left: registry.Clip(l), Right: registry.Clip(r),
			Class: rule.Class, Rule: rule.Name, Explanation: rule.Explanation}
	}
	switch {
	case blobs[0] == nil:
		return []Diff{diff("", notServed, string(bytes.TrimSpace(blobs[1])), bc.explainMissing(k, 0, dropped))}, nil
	case blobs[1] == nil:
		return []Diff{diff("", string(bytes.TrimSpace(blobs[0])), notServed, bc.explainMissing(k, 1, dropped))}, nil
	case bytes.Equal(blobs[0], blobs[1]):
		return nil, nil
	}
	var vals [2]any
	for s, b := range blobs {
		d := json.NewDecoder(bytes.NewReader(b))
		d.UseNumber()
		if err := d.Decode(&vals[s]); err != nil {
			return nil, fmt.Errorf("%s: blob %s: %w", bc.sides[s].Ref, k.request(), err)
		}
	}
	var found []valueDiff
	diffValues("", vals[0], vals[1], &found)
	out := make([]Diff, 0, len(found))
	for _, f := range found {
		out = append(out, diff(f.path, f.left, f.right, bc.explain(k, f, dropped)))
	}
	return out, nil
}

// notServed stands for the value of a side that does not serve a blob or
// a field.
const notServed = "(none)"

// order compares the order of the blobs both sides serve (after
// eachGroup matched them): the first blob served before one it follows
// on the other side, if any.
func (bc *blobCheck) order() []Diff {
	prev, moved, first, before := int32(-1), 0, int32(-1), int32(-1)
	for _, r := range bc.match {
		if r < 0 {
			continue
		}
		if r < prev {
			moved++
			if first < 0 {
				first, before = r, prev
			}
		}
		prev = r
	}
	if first < 0 {
		return nil
	}
	key := func(id int32) blobKey { return bc.list[1][bc.pos[1][id]].key }
	return []Diff{{RPC: BlobOrder, Request: key(first).request(), Path: "",
		Left:  fmt.Sprintf("after %s", key(before).request()),
		Right: fmt.Sprintf("before it (%d blob(s) out of the left side's order)", moved),
		Class: RuleBlobOrder.Class, Rule: RuleBlobOrder.Name, Explanation: RuleBlobOrder.Explanation}}
}

// valueDiff is one difference inside a blob: where, both values as JSON
// (notServed where a side has none), the top-level field it is under,
// and its rule (RuleFieldDiffers, or RuleListOrder).
type valueDiff struct {
	path, field, left, right string
	rule                     Rule
}

// diffValues appends the differences between a and b, decoded JSON
// values at path ("" for the blob), to out.
func diffValues(path string, a, b any, out *[]valueDiff) {
	add := func(p string, l, r any, rule Rule) {
		*out = append(*out, valueDiff{path: p, field: topField(p), left: showValue(l), right: showValue(r), rule: rule})
	}
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			add(path, a, b, RuleFieldDiffers)
			return
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		for _, k := range sortedKeys(keys, strLess) {
			l, lok := av[k]
			r, rok := bv[k]
			switch {
			case !lok:
				add(path+"."+k, missing{}, r, RuleFieldDiffers)
			case !rok:
				add(path+"."+k, l, missing{}, RuleFieldDiffers)
			default:
				diffValues(path+"."+k, l, r, out)
			}
		}
	case []any:
		bv, ok := b.([]any)
		if !ok {
			add(path, a, b, RuleFieldDiffers)
			return
		}
		diffLists(path, av, bv, out)
	default:
		if showValue(a) != showValue(b) {
			add(path, a, b, RuleFieldDiffers)
		}
	}
}

// diffLists compares two lists as multisets: the same elements in
// another order is one RuleListOrder difference; otherwise each element
// only one side has is a difference at path[label], and an element of
// each side under the same label, alone under it, is compared inside.
func diffLists(path string, a, b []any, out *[]valueDiff) {
	count := map[string]int{}
	for _, v := range a {
		count[showValue(v)]++
	}
	for _, v := range b {
		count[showValue(v)]--
	}
	var only [2]map[string][]any // per side, by label
	for s, list := range [2][]any{a, b} {
		only[s] = map[string][]any{}
		for _, v := range list {
			text := showValue(v)
			if s == 0 && count[text] > 0 || s == 1 && count[text] < 0 {
				only[s][label(v)] = append(only[s][label(v)], v)
			}
		}
	}
	if len(only[0]) == 0 && len(only[1]) == 0 {
		if !sameOrder(a, b) {
			*out = append(*out, valueDiff{path: path, field: topField(path), left: showValue(a), right: showValue(b), rule: RuleListOrder})
		}
		return
	}
	labels := map[string]bool{}
	for s := range 2 {
		for l := range only[s] {
			labels[l] = true
		}
	}
	for _, l := range sortedKeys(labels, strLess) {
		p := path + "[" + l + "]"
		if len(only[0][l]) == 1 && len(only[1][l]) == 1 {
			diffValues(p, only[0][l][0], only[1][l][0], out)
			continue
		}
		for _, v := range only[0][l] {
			*out = append(*out, valueDiff{path: p, field: topField(p), left: showValue(v), right: notServed, rule: RuleFieldDiffers})
		}
		for _, v := range only[1][l] {
			*out = append(*out, valueDiff{path: p, field: topField(p), left: notServed, right: showValue(v), rule: RuleFieldDiffers})
		}
	}
}

func sameOrder(a, b []any) bool {
	for i := range a {
		if showValue(a[i]) != showValue(b[i]) {
			return false
		}
	}
	return true
}

// label names a list element in a path: a property by its type, a
// channel entry or related image by its name, anything else by its
// value.
func label(v any) string {
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"type", "name", "image"} {
			if s, ok := m[k].(string); ok {
				return s
			}
		}
	}
	return showValue(v)
}

// missing stands for a field a blob does not have.
type missing struct{}

// showValue is v as compact JSON, notServed for a missing field.
func showValue(v any) string {
	if _, ok := v.(missing); ok {
		return notServed
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

// topField is the blob's top-level field a path is under.
func topField(path string) string {
	f := path
	if len(f) > 0 && f[0] == '.' {
		f = f[1:]
	}
	for i, c := range f {
		if c == '.' || c == '[' {
			return f[:i]
		}
	}
	return f
}

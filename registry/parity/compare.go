package parity

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// differ collects the differences of one call.
type differ struct {
	c   call
	cat *catalog
	out []Diff
	// req is c.request(), formatted for the call's first difference and
	// shared by the others (a bundle answer has several).
	req    string
	reqSet bool
}

func (d *differ) add(rule Rule, path, left, right string) {
	if !d.reqSet {
		d.req, d.reqSet = d.c.request(), true
	}
	d.out = append(d.out, Diff{
		RPC: d.c.rpc, Request: d.req, Path: path, Left: left, Right: right,
		Class: rule.Class, Rule: rule.Name, Explanation: rule.Explanation,
	})
}

// pick places v on side s and other on the other side, as (left, right).
func pick(s int, v string, other string) (string, string) {
	if s == 0 {
		return v, other
	}
	return other, v
}

// compare classifies the two answers to c.
func compare(cat *catalog, c call, a [2]answer) []Diff {
	d := &differ{c: c, cat: cat}
	if a[0].err != nil && a[1].err != nil {
		if a[0].errText() != a[1].errText() {
			d.add(RuleErrorText, "error", a[0].errText(), a[1].errText())
		}
		return d.out
	}
	switch c.rpc {
	case RPCListPackages:
		d.listPackages(a)
	case RPCGetPackage:
		d.getPackage(a)
	case RPCGetBundle:
		d.getBundle(a)
	case RPCGetBundleForChannel:
		d.getBundleForChannel(a)
	case RPCGetChannelEntriesThatReplace:
		d.entriesThatReplace(a)
	case RPCGetBundleThatReplaces:
		d.bundleThatReplaces(a)
	case RPCGetChannelEntriesThatProvide:
		d.entriesThatProvide(a)
	case RPCGetLatestChannelEntriesThatProvide:
		d.latestEntriesThatProvide(a)
	case RPCGetDefaultBundleThatProvides:
		d.defaultBundleThatProvides(a)
	case RPCListBundles:
		d.listBundles(a)
	}
	return d.out
}

// errorVsAnswer records a call one side answered and the other refused.
func (d *differ) errorVsAnswer(a [2]answer, rule Rule, what string) {
	d.add(rule, "error", errOrAnswer(a[0], what), errOrAnswer(a[1], what))
}

// canon parses s as JSON and re-encodes it with sorted keys, no HTML
// escaping and numbers as float64, so encodings compare equal. Text that
// is not JSON is compared trimmed.
func canon(s string) string {
	t := strings.TrimSpace(s)
	if t == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(t), &v); err != nil {
		return t
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return t
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func canonList(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, canon(s))
	}
	sort.Strings(out)
	return out
}

func compact(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		s = s[:297] + "..."
	}
	return s
}

func goQuote(s string) string { return fmt.Sprintf("%q", s) }

func toSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[s] = true
	}
	return m
}

func strLess(a, b string) bool { return a < b }

func gvkLess(a, b manifest.GVK) bool { return compareGVKStrings(a, b) < 0 }

func entryLess(a, b entryKey) bool {
	return cmp.Or(strings.Compare(a.pkg, b.pkg), strings.Compare(a.channel, b.channel),
		strings.Compare(a.bundle, b.bundle), strings.Compare(a.replaces, b.replaces)) < 0
}

func ckeyLess(a, b ckey) bool {
	return a.pkg < b.pkg || a.pkg == b.pkg && a.channel < b.channel
}

func bkeyLess(a, b bkey) bool {
	if a.pkg != b.pkg {
		return a.pkg < b.pkg
	}
	if a.channel != b.channel {
		return a.channel < b.channel
	}
	return a.name < b.name
}

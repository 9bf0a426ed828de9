package indexop

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// truncation is one package being deprecated, bundle after bundle, as
// opm's DeprecateBundle changed the database each time.
type truncation struct {
	old        *declcfg.DeclarativeConfig
	channels   []declcfg.Channel
	bundles    []declcfg.Bundle
	deprecated []string
	changes    []string
}

func newTruncation(pkg *declcfg.DeclarativeConfig) *truncation {
	t := &truncation{old: pkg, bundles: slices.Clone(pkg.Bundles)}
	for _, ch := range pkg.Channels {
		ch.Entries = slices.Clone(ch.Entries)
		for i := range ch.Entries {
			ch.Entries[i].Skips = slices.Clone(ch.Entries[i].Skips)
		}
		t.channels = append(t.channels, ch)
	}
	return t
}

// links are the bundle-level edges opm's tail query read: every channel
// of a bundle, the names its entries replace or skip, and the bundles
// whose entries replace or skip it.
type links struct {
	channels   map[string][]string
	below      map[string][]string
	replacedBy map[string][]string
}

func (t *truncation) links() links {
	l := links{channels: map[string][]string{}, below: map[string][]string{}, replacedBy: map[string][]string{}}
	add := func(m map[string][]string, k, v string) {
		if v != "" && !slices.Contains(m[k], v) {
			m[k] = append(m[k], v)
		}
	}
	for _, ch := range t.channels {
		for _, e := range ch.Entries {
			add(l.channels, e.Name, ch.Name)
			for _, b := range append([]string{e.Replaces}, e.Skips...) {
				add(l.below, e.Name, b)
				add(l.replacedBy, b, e.Name)
			}
		}
	}
	return l
}

// defaultHead is the head of the package's default channel.
func (t *truncation) defaultHead() string {
	if len(t.old.Packages) == 0 {
		return ""
	}
	for _, ch := range t.channels {
		if ch.Name == t.old.Packages[0].DefaultChannel {
			return ChannelHead(ch)
		}
	}
	return ""
}

// deprecate deprecates bundle name: its replaces and skips chain (the
// tail) leaves its channels, tail bundles no other channel or bundle
// holds leave the package, the channels it heads are removed, and it
// stays where it is left, without edges. A bundle already gone (an
// earlier deprecation truncated it) is no error, as in opm.
func (t *truncation) deprecate(name string) error {
	if !slices.ContainsFunc(t.bundles, func(b declcfg.Bundle) bool { return b.Name == name }) {
		return nil
	}
	l := t.links()
	if len(l.channels[name]) == 0 {
		return fmt.Errorf("error getting default channel head for %s: sql: no rows in result set", name)
	}
	tail := []string{name}
	for i := 0; i < len(tail); i++ {
		for _, b := range l.below[tail[i]] {
			if !slices.Contains(tail, b) {
				tail = append(tail, b)
			}
		}
	}
	if slices.Contains(tail, t.defaultHead()) {
		return ErrDefaultChannelRemoval
	}
	var headed []string
	for _, ch := range t.channels {
		if ChannelHead(ch) == name {
			headed = append(headed, ch.Name)
		}
	}
	mine := l.channels[name]
	for _, b := range tail[1:] {
		t.leaveChannels(b, mine)
		if subset(l.channels[b], mine) && subset(l.replacedBy[b], tail) {
			t.removeBundle(b, name)
		}
	}
	t.clearEdges(name)
	t.channels = slices.DeleteFunc(t.channels, func(ch declcfg.Channel) bool {
		if slices.Contains(headed, ch.Name) {
			t.changes = append(t.changes, fmt.Sprintf("removed channel %s of package %s: its head %s is deprecated", quote.Name(ch.Name), quote.Name(ch.Package), quote.Name(name)))
			return true
		}
		return false
	})
	t.deprecated = append(t.deprecated, name)
	t.changes = append(t.changes, fmt.Sprintf("deprecated bundle %s of package %s", quote.Name(name), quote.Name(t.pkgName())))
	return nil
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// leaveChannels removes bundle b from the channels given, and the edges
// to it there.
func (t *truncation) leaveChannels(b string, channels []string) {
	for i := range t.channels {
		ch := &t.channels[i]
		if !slices.Contains(channels, ch.Name) {
			continue
		}
		ch.Entries = slices.DeleteFunc(ch.Entries, func(e declcfg.ChannelEntry) bool { return e.Name == b })
		for j := range ch.Entries {
			e := &ch.Entries[j]
			if e.Replaces == b {
				e.Replaces = ""
			}
			e.Skips = slices.DeleteFunc(e.Skips, func(s string) bool { return s == b })
		}
	}
}

// removeBundle removes bundle b (truncated below the deprecated one)
// from the package.
func (t *truncation) removeBundle(b, below string) {
	n := len(t.bundles)
	t.bundles = slices.DeleteFunc(t.bundles, func(x declcfg.Bundle) bool { return x.Name == b })
	if len(t.bundles) < n {
		t.changes = append(t.changes, fmt.Sprintf("removed bundle %s of package %s: truncated below deprecated bundle %s", quote.Name(b), quote.Name(t.pkgName()), quote.Name(below)))
	}
}

// clearEdges leaves the entries of bundle name without replaces and
// skips (opm set their replaces to NULL, skips included).
func (t *truncation) clearEdges(name string) {
	for i := range t.channels {
		for j := range t.channels[i].Entries {
			if e := &t.channels[i].Entries[j]; e.Name == name {
				e.Replaces, e.Skips = "", nil
			}
		}
	}
}

func (t *truncation) pkgName() string {
	if len(t.old.Packages) > 0 {
		return t.old.Packages[0].Name
	}
	return ""
}

// result is the package's blobs: bundles no channel holds any more are
// left out (opm's render left them out), each deprecated bundle kept
// carries olm.deprecated (first, where olmcat migrate puts it) and is listed in the olm.deprecations blob.
func (t *truncation) result() (*declcfg.DeclarativeConfig, []string) {
	held := map[string]bool{}
	for _, ch := range t.channels {
		for _, e := range ch.Entries {
			held[e.Name] = true
		}
	}
	out := &declcfg.DeclarativeConfig{Packages: t.old.Packages, Channels: t.channels, Others: t.old.Others,
		Deprecations: slices.Clone(t.old.Deprecations)}
	var listed []string
	for _, b := range t.bundles {
		if !held[b.Name] {
			t.changes = append(t.changes, fmt.Sprintf("removed bundle %s of package %s: no channel holds it", quote.Name(b.Name), quote.Name(b.Package)))
			continue
		}
		if slices.Contains(t.deprecated, b.Name) {
			if !declcfg.IsDeprecated(b.Properties) {
				b.Properties = append([]declcfg.Property{{Type: declcfg.PropertyDeprecated, Value: json.RawMessage(`{}`)}}, b.Properties...)
			}
			listed = append(listed, b.Name)
		}
		out.Bundles = append(out.Bundles, b)
	}
	if len(listed) > 0 {
		out.Deprecations = deprecationsWith(out.Deprecations, t.pkgName(), listed)
	}
	return out, t.changes
}

// deprecationsWith adds a bundle entry for each of names to the
// package's olm.deprecations blob (made if there is none).
func deprecationsWith(ds []declcfg.Deprecation, pkg string, names []string) []declcfg.Deprecation {
	i := slices.IndexFunc(ds, func(d declcfg.Deprecation) bool { return d.Package == pkg })
	if i < 0 {
		ds = append(ds, declcfg.Deprecation{Schema: declcfg.SchemaDeprecations, Package: pkg})
		i = len(ds) - 1
	}
	d := &ds[i]
	d.Entries = slices.Clone(d.Entries)
	for _, n := range names {
		ref := declcfg.PackageScopedReference{Schema: declcfg.SchemaBundle, Name: n}
		if slices.ContainsFunc(d.Entries, func(e declcfg.DeprecationEntry) bool { return e.Reference == ref }) {
			continue
		}
		d.Entries = append(d.Entries, declcfg.DeprecationEntry{Reference: ref,
			Message: fmt.Sprintf("bundle %s was deprecated in the legacy index", n)})
	}
	return ds
}

package parity

import (
	"fmt"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/internal/quote"
)

// GraphDiff is one difference between the two sides' upgrade graphs.
type GraphDiff struct {
	Package string `json:"package"`
	Channel string `json:"channel"`
	// Entry is the bundle, "" when the whole channel is on one side only.
	Entry string `json:"entry,omitempty"`
	// Field is "channel", "entry", "replaces", "skips" or "skipRange".
	Field string `json:"field"`
	Left  string `json:"left"`
	Right string `json:"right"`
}

// String renders the difference on one line.
func (g GraphDiff) String() string {
	where := quote.Name(g.Package) + "/" + quote.Name(g.Channel)
	if g.Entry != "" {
		where += "/" + quote.Name(g.Entry)
	}
	return fmt.Sprintf("%s %s: left %s, right %s", where, g.Field, g.Left, g.Right)
}

// graphEntry is one channel entry's edges as a side serves them.
type graphEntry struct {
	replaces, skips, skipRange string
}

// absent marks what a side does not serve.
const absent = "(absent)"

// compareGraphs compares the upgrade graph of every channel of either
// side's index (all of one package), entry by entry, from the ListBundles
// answers. A bundle the
// declarative config side left out because the sqlite side marked it
// olm.deprecated (the migration's documented drop) is not compared;
// anything else that differs is returned.
func compareGraphs(c *catalog, idx [2]*sideIndex) ([]GraphDiff, int) {
	type chKey struct{ pkg, channel string }
	graphs := [2]map[chKey]map[string]graphEntry{{}, {}}
	for s, side := range idx {
		for k, b := range side.bundles {
			ck := chKey{k.pkg, k.channel}
			if graphs[s][ck] == nil {
				graphs[s][ck] = map[string]graphEntry{}
			}
			skips := slices.Clone(b.GetSkips())
			slices.Sort(skips)
			graphs[s][ck][k.name] = graphEntry{replaces: b.GetReplaces(), skips: strings.Join(skips, ","), skipRange: b.GetSkipRange()}
		}
	}
	channels := map[chKey]bool{}
	for s := range 2 {
		for k := range graphs[s] {
			channels[k] = true
		}
	}
	keys := make([]chKey, 0, len(channels))
	for k := range channels {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b chKey) int {
		return strings.Compare(a.pkg+"\x00"+a.channel, b.pkg+"\x00"+b.channel)
	})
	var out []GraphDiff
	for _, k := range keys {
		l, r := graphs[0][k], graphs[1][k]
		names := map[string]bool{}
		for n := range l {
			names[n] = true
		}
		for n := range r {
			names[n] = true
		}
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		slices.Sort(sorted)
		for _, n := range sorted {
			le, lok := l[n]
			re, rok := r[n]
			if !lok || !rok {
				s := 0
				if !lok {
					s = 1
				}
				if c.droppedDeprecated(s, k.pkg, n) {
					continue
				}
				out = append(out, GraphDiff{Package: k.pkg, Channel: k.channel, Entry: n, Field: "entry",
					Left: present(lok), Right: present(rok)})
				continue
			}
			for _, f := range []struct{ name, l, r string }{
				{"replaces", le.replaces, re.replaces},
				{"skips", le.skips, re.skips},
				{"skipRange", le.skipRange, re.skipRange},
			} {
				if f.l != f.r {
					out = append(out, GraphDiff{Package: k.pkg, Channel: k.channel, Entry: n, Field: f.name,
						Left: quoteEmpty(f.l), Right: quoteEmpty(f.r)})
				}
			}
		}
	}
	return out, len(keys)
}

func present(ok bool) string {
	if ok {
		return "present"
	}
	return absent
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

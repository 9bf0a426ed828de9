package v1check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
)

// Report is what OLM v1 does with one package of one catalog.
type Report struct {
	// Catalog names the catalog as the caller gave it.
	Catalog string `json:"catalog"`
	Package string `json:"package"`
	// V1Pick is the bundle operator-controller installs (nil: none).
	V1Pick *Pick `json:"v1Pick,omitempty"`
	// V0Pick is the head of the default channel, what OLM v0 installs
	// (nil: no default channel or no head).
	V0Pick *Pick `json:"v0Pick,omitempty"`
	// Findings are the blockers, unknowns and notes, in rule order.
	Findings    []Finding    `json:"findings,omitempty"`
	Deprecation *Deprecation `json:"deprecation,omitempty"`
	// UpgradeGaps are the installed bundles OLM v0 upgrades and OLM v1
	// does not bring to V1Pick.
	UpgradeGaps []UpgradeGap `json:"upgradeGaps,omitempty"`
	// pickDeprecated tells Across how operator-controller ranks this
	// catalog's candidate against another catalog's.
	pickDeprecated bool
}

// Pick is a bundle a version of OLM installs.
type Pick struct {
	Bundle string `json:"bundle"`
	// Version is the version (and release, as build metadata) as
	// operator-controller reads it, "" when it cannot.
	Version    string `json:"version,omitempty"`
	Image      string `json:"image,omitempty"`
	Channel    string `json:"channel,omitempty"`
	Deprecated bool   `json:"deprecated,omitempty"`
}

// Finding is one rule applied to a package.
type Finding struct {
	Rule     Rule     `json:"rule"`
	Severity Severity `json:"severity"`
	Bundle   string   `json:"bundle,omitempty"`
	// Message is operator-controller's error where it refuses, or what
	// happens.
	Message string `json:"message"`
	// Detail is what this case adds to the rule's explanation (Info).
	Detail string `json:"detail,omitempty"`
}

// Status sums a report up.
type Status string

// The statuses: installable, blocked (a blocker), unknown (no blocker,
// but the catalog cannot tell whether one applies).
const (
	StatusInstallable Status = "installable"
	StatusBlocked     Status = "blocked"
	StatusUnknown     Status = "unknown"
)

// Status is blocked when a finding blocks, unknown when one is unknown,
// installable otherwise.
func (r *Report) Status() Status {
	st := StatusInstallable
	for _, f := range r.Findings {
		switch f.Severity {
		case SeverityBlocker:
			return StatusBlocked
		case SeverityUnknown:
			st = StatusUnknown
		}
	}
	return st
}

// Has says whether a finding of the report is of one of rules.
func (r *Report) Has(rules ...Rule) bool {
	return slices.ContainsFunc(r.Findings, func(f Finding) bool { return slices.Contains(rules, f.Rule) })
}

// Blockers are the rules of the report's blocking findings.
func (r *Report) Blockers() []Rule {
	var out []Rule
	for _, f := range r.Findings {
		if f.Severity == SeverityBlocker && !slices.Contains(out, f.Rule) {
			out = append(out, f.Rule)
		}
	}
	return out
}

// Add records finding f of rule rule (its severity the rule's), keeping
// the findings in rule order.
func (r *Report) Add(rule Rule, bundle, message, detail string) {
	r.add(Finding{Rule: rule, Severity: Info(rule).Severity, Bundle: bundle, Message: message, Detail: detail})
}

// add records f, keeping the findings in rule order.
func (r *Report) add(f Finding) {
	r.Findings = append(r.Findings, f)
	slices.SortStableFunc(r.Findings, func(a, b Finding) int { return ruleIndex(a.Rule) - ruleIndex(b.Rule) })
}

func ruleIndex(r Rule) int {
	return slices.IndexFunc(rules, func(i RuleInfo) bool { return i.Rule == r })
}

// Option changes how Check reads a package.
type Option func(*options)

type options struct {
	fetchCSV func(ctx context.Context, b *declcfg.Bundle) (string, error)
}

// WithCSVFetcher has Check ask fetch for the CSV (JSON) of the picked
// bundle when the catalog does not carry it (no olm.bundle.object), as
// a caller that pulls bundle images does; an error is reported with the
// unknowns.
func WithCSVFetcher(fetch func(ctx context.Context, b *declcfg.Bundle) (string, error)) Option {
	return func(o *options) { o.fetchCSV = fetch }
}

// Check reports what operator-controller does with package pkg of
// catalog, whose blobs are cfg (one package's, as declcfg.EachPackage
// hands them over; bundle objects resolved).
func Check(ctx context.Context, catalog, pkg string, cfg *declcfg.DeclarativeConfig, opts ...Option) *Report {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	r := &Report{Catalog: catalog, Package: pkg}
	dep := surviving(cfg.Deprecations)
	cs := candidates(cfg.Bundles, deprecatedBundles(dep))
	rank(cs)
	r.V0Pick = v0Pick(cfg, cs)
	if len(cs) == 0 {
		r.Add(RuleNoBundles, "", fmt.Sprintf("no bundles found for package %q", pkg), "")
	} else {
		top := cs[0]
		r.V1Pick = &Pick{Bundle: top.b.Name, Image: top.b.Image, Deprecated: top.deprecated}
		r.pickDeprecated = top.deprecated
		if top.err == nil {
			r.V1Pick.Version = top.vr.String()
		} else {
			r.Add(RuleInvalidVersion, top.b.Name, top.err.Error(), "")
		}
		checkBundle(ctx, r, top.b, o)
		r.UpgradeGaps = upgradeGaps(cfg.Channels, cs)
		for _, g := range r.UpgradeGaps {
			r.Add(RuleDroppedEdge, g.Installed, g.String(), "")
		}
	}
	r.comparePicks(cfg, cs)
	r.deprecations(cfg.Deprecations, dep)
	return r
}

// v0Pick is the head of the default channel, as OLM v0 installs it.
func v0Pick(cfg *declcfg.DeclarativeConfig, cs []candidate) *Pick {
	if len(cfg.Packages) == 0 {
		return nil
	}
	def := cfg.Packages[0].DefaultChannel
	for _, ch := range cfg.Channels {
		if ch.Name != def {
			continue
		}
		head := indexop.ChannelHead(ch)
		if head == "" {
			return nil
		}
		p := &Pick{Bundle: head, Channel: def}
		if i := slices.IndexFunc(cs, func(c candidate) bool { return c.b.Name == head }); i >= 0 {
			p.Image, p.Deprecated = cs[i].b.Image, cs[i].deprecated
			if cs[i].err == nil {
				p.Version = cs[i].vr.String()
			}
		}
		return p
	}
	return nil
}

// comparePicks notes why OLM v1's pick is not OLM v0's.
func (r *Report) comparePicks(cfg *declcfg.DeclarativeConfig, cs []candidate) {
	if r.V1Pick == nil || r.V0Pick == nil || r.V1Pick.Bundle == r.V0Pick.Bundle {
		return
	}
	v1, v0 := r.V1Pick, r.V0Pick
	var why []string
	in := channelsOf(cfg.Channels, v1.Bundle)
	switch {
	case len(in) == 0:
		why = append(why, fmt.Sprintf("%s is in no channel", v1.Bundle))
	case !slices.Contains(in, v0.Channel):
		why = append(why, fmt.Sprintf("%s is not in the default channel %s (it is in %s)", v1.Bundle, v0.Channel, strings.Join(in, ", ")))
	}
	switch {
	case v0.Deprecated && !v1.Deprecated:
		why = append(why, fmt.Sprintf("%s is deprecated and ranks last", v0.Bundle))
	case v0.Version == "":
		why = append(why, fmt.Sprintf("%s has no valid version and ranks below valid bundles", v0.Bundle))
	case v1.Version != "":
		why = append(why, fmt.Sprintf("%s has version %s, above %s of %s", v1.Bundle, v1.Version, v0.Version, v0.Bundle))
	}
	msg := fmt.Sprintf("OLM v1 installs %s, OLM v0 the head of channel %s, %s", v1.Bundle, v0.Channel, v0.Bundle)
	r.Add(RulePickDiffers, v1.Bundle, msg, strings.Join(why, "; "))
}

// channelsOf names the channels with an entry for bundle, in order.
func channelsOf(chs []declcfg.Channel, bundle string) []string {
	var out []string
	for _, ch := range chs {
		if slices.ContainsFunc(ch.Entries, func(e declcfg.ChannelEntry) bool { return e.Name == bundle }) && !slices.Contains(out, ch.Name) {
			out = append(out, ch.Name)
		}
	}
	return out
}

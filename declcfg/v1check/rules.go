package v1check

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Rule is the stable name of one reason operator-controller refuses,
// or one thing it does differently from OLM v0, that a report names.
type Rule string

// The rules. Those whose Severity is SeverityBlocker refuse the install;
// the others are notes (a difference worth knowing) or unknowns (the
// catalog cannot tell).
const (
	// RuleUnparsable: catalogd cannot store the catalog.
	RuleUnparsable Rule = "unparsable-blob"
	// RuleDuplicatePackage: the package is in several catalogs of equal
	// priority.
	RuleDuplicatePackage Rule = "duplicate-package"
	// RuleNoBundles: the package has no bundle.
	RuleNoBundles Rule = "no-bundles"
	// RuleInvalidVersion: the picked bundle has no valid version.
	RuleInvalidVersion Rule = "invalid-version"
	// RuleDependency: the picked bundle declares a dependency.
	RuleDependency Rule = "dependency"
	// RuleMediaType: the picked bundle is not registry+v1.
	RuleMediaType Rule = "media-type"
	// RuleInstallMode: the picked bundle does not support AllNamespaces.
	RuleInstallMode Rule = "install-mode"
	// RuleAPIService: the picked bundle owns APIServices.
	RuleAPIService Rule = "apiservice"
	// RuleConversionWebhook: a conversion webhook beside install modes
	// other than AllNamespaces.
	RuleConversionWebhook Rule = "conversion-webhook"
	// RuleWebhook: the picked bundle has webhooks (cert-manager needed).
	RuleWebhook Rule = "webhook"
	// RuleNeedsCSV: the answer needs the bundle's CSV, which the catalog
	// does not carry.
	RuleNeedsCSV Rule = "needs-csv"
	// RulePickDiffers: OLM v1 picks another bundle than OLM v0.
	RulePickDiffers Rule = "pick-differs"
	// RuleDroppedEdge: an upgrade OLM v0 makes that OLM v1 does not.
	RuleDroppedEdge Rule = "dropped-edge"
	// RuleDeprecated: OLM v1 reports the package, a channel or the
	// picked bundle deprecated.
	RuleDeprecated Rule = "deprecated"
	// RuleSeveralDeprecations: only the last olm.deprecations blob of
	// the package counts.
	RuleSeveralDeprecations Rule = "several-deprecations"
)

// Severity says what a finding does to the install.
type Severity string

// The severities.
const (
	SeverityBlocker Severity = "blocker"
	SeverityUnknown Severity = "unknown"
	SeverityNote    Severity = "note"
)

// RuleInfo describes a rule: what it does to the install, why, and the
// source (repository path@tag) the behaviour is read from.
type RuleInfo struct {
	Rule     Rule     `json:"rule"`
	Severity Severity `json:"severity"`
	Why      string   `json:"why"`
	Source   string   `json:"source"`
}

const (
	ocResolve   = "operator-controller internal/operator-controller/resolve/catalog.go@v1.11.0"
	ocProvider  = "operator-controller internal/operator-controller/applier/provider.go@v1.11.0"
	ocSuccessor = "operator-controller internal/operator-controller/catalogmetadata/filter/successors.go@v1.11.0"
	ocCache     = "operator-controller internal/operator-controller/catalogmetadata/cache/cache.go@v1.11.0"
)

// rules is every rule, in the order reports list them.
var rules = []RuleInfo{
	{RuleUnparsable, SeverityBlocker, "catalogd parses every blob of a catalog (a JSON object whose schema, package and name are strings, no two keys differing only in case); one it cannot parse fails the whole catalog, which is then never served, and a ClusterExtension whose selector matches a catalog that is not served cannot resolve any package", "operator-registry alpha/declcfg/declcfg.go@v1.73.0; " + ocResolve},
	{RuleDuplicatePackage, SeverityBlocker, "operator-controller looks for the package in every catalog the selector matches (all by default); when the best candidates of two catalogs have the same priority (and the same deprecation status) resolution fails, even when they are the same bundle", ocResolve},
	{RuleNoBundles, SeverityBlocker, "the package has no bundle to install", ocResolve},
	{RuleInvalidVersion, SeverityBlocker, "bundles without an olm.package property or with a version blang/semver cannot parse rank below every valid bundle; when one is still the best candidate, reading its version fails the resolution", ocResolve + "; operator-controller internal/operator-controller/bundleutil/bundle.go@v1.11.0"},
	{RuleDependency, SeverityBlocker, "operator-controller does not resolve dependencies: it refuses a picked bundle with an olm.package.required, olm.gvk.required or olm.constraint property (the first in list order is named), and does not fall back to a lower version", "operator-controller internal/operator-controller/resolve/validation.go@v1.11.0"},
	{RuleMediaType, SeverityBlocker, "operator-controller unpacks every bundle image as registry+v1 (metadata/annotations.yaml, a flat manifests/ with a CSV); a helm or plain bundle fails to unpack", "operator-controller internal/operator-controller/rukpak/bundle/source/source.go@v1.11.0"},
	{RuleInstallMode, SeverityBlocker, "with the standard feature set a bundle must support AllNamespaces; SingleNamespace or OwnNamespace bundles install only with the Alpha gate SingleOwnNamespaceInstallSupport on and spec.config.inline.watchNamespace set (the experimental CRD); a MultiNamespace-only bundle is refused in every case", ocProvider + "; operator-controller internal/operator-controller/rukpak/bundle/registryv1.go@v1.11.0"},
	{RuleAPIService, SeverityBlocker, "operator-controller refuses bundles that own APIServices", ocProvider},
	{RuleConversionWebhook, SeverityBlocker, "operator-controller's bundle validators allow conversion webhooks only when AllNamespaces is the only supported install mode", "operator-controller internal/operator-controller/rukpak/render/registryv1/validators/validator.go@v1.11.0"},
	{RuleWebhook, SeverityNote, "webhooks install with the WebhookProviderCertManager gate (GA, on by default): operator-controller creates a self-signed cert-manager Issuer and Certificate, so cert-manager must run on the cluster", ocProvider + "; operator-controller internal/operator-controller/rukpak/render/certproviders/certmanager.go@v1.11.0"},
	{RuleNeedsCSV, SeverityUnknown, "webhooks are not in olm.csv.metadata, and without olm.csv.metadata neither are the install modes or APIServices: only the CSV (an olm.bundle.object, or the bundle image) tells; unknown webhooks beside AllNamespaces as the only install mode are a note, as they cannot refuse the install", "operator-registry alpha/property/property.go@v1.73.0"},
	{RulePickDiffers, SeverityNote, "operator-controller never reads defaultChannel: with no channels set every bundle of the package is a candidate, including bundles in no channel, and the highest version wins; OLM v0 installs the head of the default channel", ocResolve + "; operator-controller internal/operator-controller/catalogmetadata/compare/compare.go@v1.11.0"},
	{RuleDroppedEdge, SeverityNote, "OLM v1 upgrades an installed bundle only to itself or a channel entry that replaces it, skips it or has a skipRange containing its version, the highest-ranked of those (deprecated last); it walks no replaces chain and has no semver edges, so an upgrade OLM v0 makes along a channel can stall", ocSuccessor},
	{RuleDeprecated, SeverityNote, "deprecation never blocks an install; OLM v1 reports it in the ClusterExtension's PackageDeprecated, ChannelDeprecated (every deprecated channel when none is selected) and BundleDeprecated conditions, and ranks deprecated bundles last", "operator-controller internal/operator-controller/controllers/clusterextension_controller.go@v1.11.0"},
	{RuleSeveralDeprecations, SeverityNote, "operator-controller's catalog cache keeps one blob per package, schema and name; olm.deprecations blobs have no name, so only the last one of the package survives", ocCache},
}

// Rules lists every rule with its severity, explanation and source.
func Rules() []RuleInfo { return slices.Clone(rules) }

// Info is the description of rule r (the zero RuleInfo for an unknown
// name).
func Info(r Rule) RuleInfo {
	for _, i := range rules {
		if i.Rule == r {
			return i
		}
	}
	return RuleInfo{}
}

// RuleNames lists the names of every rule, comma-separated.
func RuleNames() string {
	names := make([]string, len(rules))
	for i, r := range rules {
		names[i] = string(r.Rule)
	}
	return strings.Join(names, ", ")
}

// ParseRules reads a comma-separated list of rule names (blanks and
// empty items ignored; "" is none): an unknown name, or a list of no
// name at all, is an error.
func ParseRules(s string) ([]Rule, error) {
	var out []Rule
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		if Info(Rule(name)).Rule == "" {
			return nil, fmt.Errorf("unknown rule %q (rules: %s)", name, RuleNames())
		}
		out = append(out, Rule(name))
	}
	if s != "" && len(out) == 0 {
		return nil, errors.New("no rule named")
	}
	return out, nil
}

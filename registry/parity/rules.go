package parity

// Class is how a difference weighs.
type Class string

const (
	// Benign differences are known, documented differences between the
	// sqlite and the declarative config servers that clients absorb.
	Benign Class = "benign"
	// Loss differences mean the right side does not serve what the left
	// side served (or serves something else).
	Loss Class = "loss"
)

// Rule names one kind of difference. Its explanation says, on its own,
// why the two servers differ there.
type Rule struct {
	Name        string `json:"name"`
	Class       Class  `json:"class"`
	Explanation string `json:"explanation"`
}

// Benign rules: asymmetries between the upstream sqlite server and the
// declarative config server, and of the migration, found by comparing the
// real servers' answers on the fixtures. They apply only when one side is
// the sqlite backend and the other the declarative config backend.
var (
	RulePluralSQLiteOnly = Rule{"plural-sqlite-only", Benign,
		"the sqlite server fills GroupVersionKind.plural from its api table in the GetBundle family; the declarative config server never sets it"}
	RuleDeprecationFBCOnly = Rule{"deprecation-fbc-only", Benign,
		"deprecation messages come from olm.deprecations blobs, which only the declarative config server has"}
	RuleGetBundleForChannelShape = Rule{"get-bundle-for-channel-shape", Benign,
		"the sqlite GetBundleForChannel returns only csvName and csvJson (trimmed on purpose, operator-registry#769); the declarative config server returns the full bundle"}
	RuleRequiredPropertiesFBCOnly = Rule{"required-properties-fbc-only", Benign,
		"olm.gvk.required and olm.package.required properties exist only on the declarative config side; the sqlite side carries the same requirement as an olm.gvk/olm.package dependency"}
	RuleLabelConstraintAsProperty = Rule{"label-constraint-dependency-as-property", Benign,
		"olm.label and olm.constraint dependencies are kept as olm.label.required/olm.constraint properties by the migration; the declarative config server derives dependencies only from gvk and package requirements"}
	RulePackagePropertySynthesized = Rule{"olm-package-property-synthesized", Benign,
		"the migration adds an olm.package property (name and version of the bundle) to bundles whose sqlite rows had none"}
	RuleDeprecatedPropertyAsDeprecation = Rule{"deprecated-property-as-deprecation", Benign,
		"the sqlite olm.deprecated property became an olm.deprecations entry, served as the bundle's deprecation field"}
	RuleLatestProviderHeadVsNearest = Rule{"latest-provider-head-vs-nearest", Benign,
		"sqlite reports the provider nearest the channel head (one row per channel); the declarative config server looks only at channel heads and adds an entry per head skip present in the channel"}
	RuleDefaultProviderChoice = Rule{"default-provider-choice", Benign,
		"both servers returned a provider from a default channel but chose different ones (sqlite takes the first GROUP BY row, the declarative config server the first package by name)"}
	RuleReplaceEntrySkipReplaces = Rule{"replace-entry-skip-replaces", Benign,
		"for an entry that only skips the name, sqlite sets replaces to the queried name, the declarative config server to the bundle's own replaces"}
	RuleProvideEntrySkipEdges = Rule{"provide-entry-skip-edges", Benign,
		"provider entries come from sqlite's synthesized skip edges and dummy skip entries versus the declarative config entries' skips; same bundles, different edge rows"}
	RuleErrorText = Rule{"error-text", Benign,
		"both servers answered with an error; the messages differ in wording only"}
	RuleListBundlesManifests = Rule{"list-bundles-manifests", Benign,
		"ListBundles strips csvJson/object at stream time by different rules per backend; GetBundle carries the manifests and is compared separately"}
	RuleListBundlesEdgeKind = Rule{"list-bundles-edge-kind", Benign,
		"sqlite ListBundles derives replaces/skips from channel_entry depths (a channel without an entry at the global minimum depth reports every edge as a skip); the same edges are served"}
	RuleCSVMetadataManifests = Rule{"csv-metadata-manifests", Benign,
		"the bundle-object-to-csv-metadata migration level replaced the manifests of an image bundle by olm.csv.metadata; the server synthesizes a CSV from it and serves no other object (OLM installs image bundles from the image)"}
	RuleDeprecatedBundleDropped = Rule{"olm-deprecated-bundle-dropped", Benign,
		"the migration dropped a bundle carrying olm.deprecated that the sqlite server still served (OLM never installs it; olm-docs#274)"}
)

// Benign rules of a blob check (CheckBlobs).
var (
	RuleBlobOrder = Rule{"blob-order", Benign,
		"the same blobs are served in another order: catalogd serves a catalog in its file walk order; OLM v1 reads the whole stream, so only a reader of byte ranges sees the order"}
	RuleListOrder = Rule{"list-order", Benign,
		"a list holds the same elements in another order; no list of a declarative config blob (properties, channel entries, skips, related images) is ordered in meaning"}
	RuleNotCarriedByGRPC = Rule{"not-carried-by-grpc", Benign,
		"the registry gRPC API has no field for this (a package's description and icon, a bundle's related images), so the catalog rebuilt from a gRPC server cannot have it: OLM v1 reads it from catalogd, OLM v0 never sees it"}
)

// Loss rules: anything not covered by a benign rule.
var (
	RulePackageMissing    = Rule{"package-missing", Loss, "a package is served by one side only"}
	RuleChannelMissing    = Rule{"channel-missing", Loss, "a channel is served by one side only"}
	RuleDefaultChannel    = Rule{"default-channel-differs", Loss, "the package's default channel differs"}
	RuleHeadDiffers       = Rule{"head-differs", Loss, "the channel head differs"}
	RuleBundleMissing     = Rule{"bundle-missing", Loss, "a bundle is served by one side only"}
	RulePropertyMissing   = Rule{"property-missing", Loss, "a bundle property is served by one side only"}
	RulePropertyDiffers   = Rule{"property-differs", Loss, "a bundle property has a different value"}
	RuleDependencyMissing = Rule{"dependency-missing", Loss, "a bundle dependency is served by one side only"}
	RuleAPIMissing        = Rule{"api-missing", Loss, "a provided or required API is served by one side only"}
	RuleEdgeMissing       = Rule{"edge-missing", Loss, "an upgrade edge (replaces/skips) is served by one side only"}
	RuleEntryMissing      = Rule{"entry-missing", Loss, "a channel entry is served by one side only"}
	RuleProviderDiffers   = Rule{"provider-differs", Loss, "a different provider bundle was returned"}
	RuleManifestsDiffer   = Rule{"manifests-differ", Loss, "csvJson or bundle objects differ"}
	RuleFieldDiffers      = Rule{"field-differs", Loss, "a field has a different value"}
	RuleErrorVsAnswer     = Rule{"error-vs-answer", Loss, "one side answered, the other returned an error"}
	RuleBlobMissing       = Rule{"blob-missing", Loss, "a blob (by schema, package and name) is served by one side only"}
)

// Rules lists every rule, benign first, for documentation and JSON output.
var Rules = []Rule{
	RulePluralSQLiteOnly, RuleDeprecationFBCOnly, RuleGetBundleForChannelShape, RuleRequiredPropertiesFBCOnly,
	RuleLabelConstraintAsProperty, RulePackagePropertySynthesized, RuleDeprecatedPropertyAsDeprecation,
	RuleLatestProviderHeadVsNearest, RuleDefaultProviderChoice, RuleReplaceEntrySkipReplaces,
	RuleProvideEntrySkipEdges, RuleErrorText, RuleListBundlesManifests,
	RuleListBundlesEdgeKind, RuleCSVMetadataManifests, RuleDeprecatedBundleDropped,
	RuleBlobOrder, RuleListOrder, RuleNotCarriedByGRPC,
	RulePackageMissing, RuleChannelMissing, RuleDefaultChannel, RuleHeadDiffers, RuleBundleMissing,
	RulePropertyMissing, RulePropertyDiffers, RuleDependencyMissing, RuleAPIMissing, RuleEdgeMissing,
	RuleEntryMissing, RuleProviderDiffers, RuleManifestsDiffer, RuleFieldDiffers, RuleErrorVsAnswer,
	RuleBlobMissing,
}

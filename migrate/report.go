package migrate

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg/v1check"
	"github.com/operator-catalog/olmcat/internal/quote"
	"github.com/operator-catalog/olmcat/legacy"
)

// Kind names a kind of finding. Every kind has a hint (Hint) and a
// troubleshooting entry in MIGRATION.md.
type Kind string

// Kinds of drops: content left out of the catalog, on purpose.
const (
	// DropDeprecated: a bundle the legacy index deprecated (opm dropped it too).
	DropDeprecated Kind = "deprecated-bundle"
	// DropStranded: a bundle no channel entry names; it could never be installed.
	DropStranded Kind = "stranded-bundle"
	// DropNoChannel: a bundle whose channel entries all name channels that
	// do not exist.
	DropNoChannel Kind = "bundle-without-channel"
	// DropOrphanEntries: channel_entry rows of a channel missing from the channel table.
	DropOrphanEntries Kind = "orphan-channel-entries"
	// DropInvalidRelatedImage: a related image with an invalid pull spec
	// (WithDropInvalidRelatedImages).
	DropInvalidRelatedImage Kind = "dropped-invalid-related-image"
	// DropInvalidBundle: a bundle that cannot be served (WithDropInvalidBundles).
	DropInvalidBundle Kind = "dropped-invalid-bundle"
	// DropUnknownDependency: a dependency type with no declarative config equivalent.
	DropUnknownDependency Kind = "unknown-dependency"
	// DropDanglingEntryLink: a channel_entry row replaces an entry_id that
	// does not exist; the edge is ignored.
	DropDanglingEntryLink Kind = "dangling-entry-link"
	// DropIcon: the package icon could not be decoded.
	DropIcon Kind = "undecodable-icon"
	// DropPackageMeta: the package description and icon could not be
	// derived: the default channel head's CSV does not decode.
	DropPackageMeta Kind = "underivable-package-metadata"
)

// Kinds of notes: worth knowing, nothing left out.
const (
	// NoteDanglingEdge: an edge names a bundle the migration dropped.
	NoteDanglingEdge Kind = "dangling-edge"
	// NoteNoCSV: a bundle's manifests hold no ClusterServiceVersion.
	NoteNoCSV Kind = "no-csv-in-manifests"
	// NoteStaleChannelHead: the channel table names a head bundle the
	// database does not have; the graph comes from channel_entry anyway.
	NoteStaleChannelHead Kind = "stale-channel-head"
	// NoteAbandonedTemp: a temporary output directory an earlier, killed
	// run left beside the output was removed.
	NoteAbandonedTemp Kind = "abandoned-temp-dir"
	// NoteTemplatesVerified: the templates written were rendered back and
	// the result checked against the migrated catalog.
	NoteTemplatesVerified Kind = "templates-verified"
)

// Kinds of problems: content that would not serve. Any problem fails the
// migration unless a resolution option turned it into a drop.
const (
	ProblemInvalidImage          Kind = "invalid-image"
	ProblemInvalidRelatedImage   Kind = "invalid-related-image"
	ProblemInvalidVersion        Kind = "invalid-version"
	ProblemInvalidSkipRange      Kind = "invalid-skip-range"
	ProblemInvalidProperty       Kind = "invalid-property"
	ProblemInvalidCSV            Kind = "invalid-csv"
	ProblemInvalidManifest       Kind = "invalid-manifest"
	ProblemMissingImage          Kind = "missing-image"
	ProblemDuplicateVersion      Kind = "duplicate-version"
	ProblemInvalidPackageName    Kind = "invalid-package-name"
	ProblemMissingDefaultChannel Kind = "missing-default-channel"
	ProblemEmptyChannel          Kind = "empty-channel"
	ProblemNoHead                Kind = "no-channel-head"
	ProblemMultipleHeads         Kind = "multiple-channel-heads"
	ProblemCycle                 Kind = "replaces-cycle"
	ProblemUnreachable           Kind = "unreachable-bundle"
	ProblemInvalidOutput         Kind = "invalid-output"
)

// Remedy is a migration option that resolves a kind of finding. A hint
// names it where its text says %s; a caller names it as it exposes the
// option (HintWith), the package as the Option that sets it (Hint).
type Remedy string

// The remedies, each named as the Option that sets it.
const (
	RemedyKeepDeprecated           Remedy = "WithKeepDeprecated"
	RemedyDropInvalidBundles       Remedy = "WithDropInvalidBundles"
	RemedyDropInvalidRelatedImages Remedy = "WithDropInvalidRelatedImages"
)

// hint is what the user can do about a kind of finding: text, with the
// remedy (if any) named where it says %s.
type hint struct {
	remedy Remedy
	text   string
}

// hints say, per kind, what the user can do. They are printed with every
// finding and repeated in MIGRATION.md.
var hints = map[Kind]hint{
	DropDeprecated:          {RemedyKeepDeprecated, "%s to keep deprecated bundles (listed in an olm.deprecations blob)"},
	DropStranded:            {text: "no channel entry names this bundle, so no client could ever install it; add it to a channel in the migrated catalog if it is needed"},
	DropNoChannel:           {text: "its channel entries name channels that do not exist; add it to a channel in the migrated catalog if it is needed"},
	DropOrphanEntries:       {text: "the channel table has no row for this channel; the legacy server never listed it either"},
	DropInvalidRelatedImage: {text: "fix the image reference in the source bundle and rebuild if the image is needed"},
	DropInvalidBundle:       {text: "fix the bundle and add it to the migrated catalog again if it is needed"},
	DropUnknownDependency:   {text: "declarative configs have no equivalent; add the requirement as a property by hand if a client relies on it"},
	DropDanglingEntryLink:   {text: "the channel_entry table is damaged; check the channel's upgrade graph in the migrated catalog"},
	DropIcon:                {text: "the package is served without an icon; fix spec.icon of the default channel head's CSV"},
	DropPackageMeta:         {text: "fix the default channel head's CSV (or set description and icon in the migrated olm.package blob)"},
	NoteNoCSV:               {text: "nothing while the bundle image is pullable: clients install from the image; fix the index entry if manifests matter to you"},
	NoteStaleChannelHead:    {text: "nothing to do: the head is derived from channel_entry as opm did; only the package icon and description, taken from the stored default channel head, may be missing"},
	NoteAbandonedTemp:       {text: "nothing to do: a run that was killed left it; its owner was no longer running"},
	NoteTemplatesVerified:   {text: "nothing to do: the templates render back to the migrated catalog"},
	NoteDanglingEdge:        {RemedyKeepDeprecated, "allowed (the upgrade edge names a bundle that is not in the catalog); %s if the named bundle was deprecated and clients still need it"},

	ProblemInvalidImage:          {RemedyDropInvalidBundles, "%s to leave the bundle out, or fix the bundle image reference"},
	ProblemInvalidRelatedImage:   {RemedyDropInvalidRelatedImages, "%s to leave the related image out, or fix the reference"},
	ProblemInvalidVersion:        {RemedyDropInvalidBundles, "%s to leave the bundle out; declarative configs need a semver version"},
	ProblemInvalidSkipRange:      {RemedyDropInvalidBundles, "%s to leave the bundle out; skipRange must be a semver range"},
	ProblemInvalidProperty:       {RemedyDropInvalidBundles, "%s to leave the bundle out; the property value does not parse"},
	ProblemInvalidCSV:            {RemedyDropInvalidBundles, "%s to leave the bundle out; its ClusterServiceVersion is not valid JSON"},
	ProblemInvalidManifest:       {RemedyDropInvalidBundles, "%s to leave the bundle out; one of its manifests is not valid JSON"},
	ProblemMissingImage:          {RemedyDropInvalidBundles, "%s to leave the bundle out; a bundle needs an image or its manifests"},
	ProblemDuplicateVersion:      {text: "two bundles of the package have the same version; remove one from the legacy index (or the migrated catalog) first"},
	ProblemInvalidPackageName:    {text: "declarative config package names must be DNS-1123 labels; the package cannot be served by a declarative config catalog"},
	ProblemMissingDefaultChannel: {RemedyKeepDeprecated, "the default channel has no bundle left; %s if its bundles were deprecated"},
	ProblemEmptyChannel:          {RemedyKeepDeprecated, "the channel has no bundle left; %s if its bundles were deprecated"},
	ProblemNoHead:                {text: "every bundle of the channel is replaced or skipped by another: the upgrade graph has a cycle"},
	ProblemMultipleHeads:         {RemedyKeepDeprecated, "the upgrade graph has more than one head; %s if a dropped deprecated bundle linked them"},
	ProblemCycle:                 {text: "the replaces chain loops; fix the graph in the legacy index"},
	ProblemUnreachable:           {RemedyKeepDeprecated, "the bundle is neither on the replaces chain from the head nor skipped; %s if a dropped deprecated bundle linked it"},
	ProblemInvalidOutput:         {text: "the converted catalog failed validation; please report this with the migration report"},
}

// Kinds lists every kind of finding, sorted.
func Kinds() []Kind {
	out := make([]Kind, 0, len(hints))
	for k := range hints {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Hint returns what the user can do about a finding of kind k, naming
// its remedy as the Option that sets it ("use WithKeepDeprecated").
func Hint(k Kind) string {
	return HintWith(k, func(r Remedy) string { return "use " + string(r) })
}

// HintWith returns what the user can do about a finding of kind k, naming
// its remedy with name (the CLI: "pass --keep-deprecated").
func HintWith(k Kind, name func(Remedy) string) string {
	h := hints[k]
	if h.remedy == "" {
		return h.text
	}
	return fmt.Sprintf(h.text, name(h.remedy))
}

// Finding is one drop, note or problem, naming what it is about.
type Finding struct {
	Kind    Kind   `json:"kind"`
	Package string `json:"package,omitempty"`
	Channel string `json:"channel,omitempty"`
	Bundle  string `json:"bundle,omitempty"`
	// Field is the blob field concerned, e.g. "image", "relatedImages[2].image".
	Field string `json:"field,omitempty"`
	// Value is the offending value, when there is one.
	Value string `json:"value,omitempty"`
	// Detail says what was found and what was done, in one sentence.
	Detail string `json:"detail"`
	// Hint says what the user can do.
	Hint string `json:"hint,omitempty"`
}

// String renders the finding on one line: kind, where, detail.
func (f Finding) String() string {
	var where []string
	if f.Package != "" {
		where = append(where, "package "+quote.Name(f.Package))
	}
	if f.Channel != "" {
		where = append(where, "channel "+quote.Name(f.Channel))
	}
	if f.Bundle != "" {
		where = append(where, "bundle "+quote.Name(f.Bundle))
	}
	if f.Field != "" {
		where = append(where, "field "+f.Field)
	}
	s := fmt.Sprintf("%s: %s", f.Kind, f.Detail)
	if len(where) > 0 {
		s = fmt.Sprintf("%s: %s: %s", f.Kind, strings.Join(where, ", "), f.Detail)
	}
	if f.Value != "" {
		s += fmt.Sprintf(" (value %q)", f.Value)
	}
	return s
}

// Counts are what the migration wrote.
type Counts struct {
	Packages     int `json:"packages"`
	Channels     int `json:"channels"`
	Bundles      int `json:"bundles"`
	Objects      int `json:"objects"`
	Deprecations int `json:"deprecations"`
}

// Report is everything a migration did: what it wrote, what the legacy
// reader repaired, what was left out and why, and what would not serve.
type Report struct {
	// Input is the database path, Output the catalog directory ("" for Render).
	Input        string `json:"input"`
	Output       string `json:"output,omitempty"`
	SchemaLevel  int    `json:"schemaLevel"`
	MigrateLevel string `json:"migrateLevel"`
	Counts       Counts `json:"counts"`
	// Repairs are the legacy reader's repairs of known damage.
	Repairs []legacy.Repair `json:"repairs"`
	// Drops are content left out of the catalog, each with its reason.
	Drops []Finding `json:"drops"`
	// Notes are facts worth knowing that changed nothing.
	Notes []Finding `json:"notes"`
	// Problems are content that would not serve. A migration with
	// problems fails and writes nothing.
	Problems []Finding `json:"problems"`
	// Templates are the templates ToTemplate wrote, one per package.
	Templates []TemplateFinding `json:"templates,omitempty"`
	// V1Check is what OLM v1 does with each converted package, when the
	// caller asked (package declcfg/v1check), by package name.
	V1Check []*v1check.Report `json:"v1Check,omitempty"`
}

// ProblemsError is returned when the database holds unservable content.
type ProblemsError struct {
	Problems []Finding
}

// Error lists every problem on its own line, then one hint per kind (the
// first problem's Hint).
func (e *ProblemsError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d problem(s) would make the catalog unservable; nothing was written:", len(e.Problems))
	seen := map[Kind]bool{}
	for _, p := range e.Problems {
		fmt.Fprintf(&b, "\n  %s", p)
	}
	for _, p := range e.Problems {
		if seen[p.Kind] {
			continue
		}
		seen[p.Kind] = true
		if h := p.Hint; h != "" {
			fmt.Fprintf(&b, "\n  hint (%s): %s", p.Kind, h)
		}
	}
	return b.String()
}

func (r *Report) init() {
	r.Repairs = []legacy.Repair{}
	r.Drops = []Finding{}
	r.Notes = []Finding{}
	r.Problems = []Finding{}
}

// sortFindings orders findings by package, channel, bundle, kind, field so
// that reports do not depend on worker scheduling.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(cmp.Compare(a.Package, b.Package), cmp.Compare(a.Channel, b.Channel),
			cmp.Compare(a.Bundle, b.Bundle), cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Field, b.Field))
	})
}

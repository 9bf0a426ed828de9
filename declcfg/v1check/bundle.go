package v1check

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// propertyMediaType is the bundle property plain and helm bundles carry
// in a catalog to say they are not registry+v1.
const propertyMediaType = "olm.bundle.mediatype"

// registryV1 is the one bundle format operator-controller installs.
const registryV1 = "registry+v1"

// Install mode types.
const (
	modeAll    = "AllNamespaces"
	modeSingle = "SingleNamespace"
	modeOwn    = "OwnNamespace"
)

// dependencyTypes are the properties operator-controller refuses.
var dependencyTypes = []string{declcfg.PropertyPackageRequired, declcfg.PropertyGVKRequired, declcfg.PropertyConstraint}

// checkBundle adds the findings of the picked bundle b.
func checkBundle(ctx context.Context, r *Report, b *declcfg.Bundle, o options) {
	for _, p := range b.Properties {
		if slices.Contains(dependencyTypes, p.Type) {
			r.Add(RuleDependency, b.Name, fmt.Sprintf("validating bundle %q: bundle %q has a dependency declared via property %q which is currently not supported", b.Name, b.Name, p.Type), "")
			break
		}
	}
	f := readFacts(ctx, b, o)
	if mt := mediaType(b, f); mt != "" && mt != registryV1 {
		r.Add(RuleMediaType, b.Name, fmt.Sprintf("bundle media type %q: operator-controller unpacks it as %s and fails", mt, registryV1), "")
	}
	if !f.modesKnown {
		r.Add(RuleNeedsCSV, b.Name, "unknown: needs the CSV (install modes, APIServices, webhooks)", f.why())
		return
	}
	checkModes(r, b.Name, f.modes)
	if len(f.apiServices) > 0 {
		r.Add(RuleAPIService, b.Name, "unsupported bundle: apiServiceDefintions are not supported", "owned: "+strings.Join(f.apiServices, ", "))
	}
	if !f.webhooksKnown {
		// Webhooks block only as conversion webhooks beside other
		// install modes: with AllNamespaces alone they cannot.
		sev := SeverityUnknown
		if slices.Equal(f.modes, []string{modeAll}) {
			sev = SeverityNote
		}
		r.add(Finding{Rule: RuleNeedsCSV, Severity: sev, Bundle: b.Name, Message: "unknown: needs the CSV (webhooks)", Detail: f.why()})
		return
	}
	checkWebhooks(r, b.Name, f)
}

// checkModes adds the install-mode finding of supported modes.
func checkModes(r *Report, bundle string, modes []string) {
	if slices.Contains(modes, modeAll) {
		return
	}
	const msg = "unsupported bundle: bundle does not support AllNamespaces install mode"
	if slices.Contains(modes, modeSingle) || slices.Contains(modes, modeOwn) {
		r.Add(RuleInstallMode, bundle, msg, fmt.Sprintf("supports %s: installs only with the Alpha gate SingleOwnNamespaceInstallSupport on and spec.config.inline.watchNamespace set (the experimental CRD; OwnNamespace: the install namespace, SingleNamespace: another one)", strings.Join(modes, ", ")))
		return
	}
	detail := "supports no install mode"
	if len(modes) > 0 {
		detail = "supports only " + strings.Join(modes, ", ")
	}
	r.Add(RuleInstallMode, bundle, msg, detail+": refused whatever the feature gates")
}

// checkWebhooks adds the findings of the bundle's webhooks.
func checkWebhooks(r *Report, bundle string, f facts) {
	if len(f.webhooks) == 0 {
		return
	}
	var names []string
	conversion := false
	for _, w := range f.webhooks {
		names = append(names, fmt.Sprintf("%s (%s)", w.GenerateName, w.Type))
		conversion = conversion || w.Type == "ConversionWebhook"
	}
	r.Add(RuleWebhook, bundle, "installs with cert-manager certificates: cert-manager must run on the cluster", strings.Join(names, ", "))
	if conversion && !slices.Equal(f.modes, []string{modeAll}) {
		r.Add(RuleConversionWebhook, bundle, "conversion webhooks need AllNamespaces as the only supported install mode", "supports "+strings.Join(f.modes, ", "))
	}
}

// facts is what the install checks read of the bundle's CSV.
type facts struct {
	from          string // "the CSV", "olm.csv.metadata", "" (nothing)
	fetchErr      error
	modes         []string // the supported install modes
	modesKnown    bool
	apiServices   []string // owned
	webhooks      []manifest.WebhookDescription
	webhooksKnown bool
	annotations   map[string]string
}

// why says why facts are unknown.
func (f facts) why() string {
	msg := "the catalog has no olm.bundle.object CSV for it"
	if f.from != "" {
		msg = "the catalog has only " + f.from + " for it"
	}
	if f.fetchErr != nil {
		msg += "; fetching the bundle image failed: " + f.fetchErr.Error()
	}
	return msg
}

// readFacts reads the facts from the bundle's CSV (an olm.bundle.object,
// or fetched), else from its olm.csv.metadata, else none.
func readFacts(ctx context.Context, b *declcfg.Bundle, o options) facts {
	csvJSON := b.CsvJSON
	if csvJSON == "" && len(b.Objects) == 0 {
		// A catalog made in memory (converted from a sqlite index) has
		// its objects in the properties only.
		one := &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{*b}}
		if one.ResolveBundleObjects() == nil {
			csvJSON = one.Bundles[0].CsvJSON
		}
	}
	var f facts
	if csvJSON == "" && o.fetchCSV != nil {
		csvJSON, f.fetchErr = o.fetchCSV(ctx, b)
	}
	if csvJSON != "" {
		if cf, err := csvFacts(csvJSON); err == nil {
			return cf
		} else if f.fetchErr == nil {
			f.fetchErr = fmt.Errorf("read the CSV: %w", err)
		}
	}
	for _, p := range b.Properties {
		if p.Type != declcfg.PropertyCSVMetadata {
			continue
		}
		f.from = declcfg.PropertyCSVMetadata
		m, err := declcfg.ParseCSVMetadataValue(p.Value)
		if err != nil {
			return f
		}
		f.modes, f.modesKnown = supported(m.InstallModes), true
		f.annotations = m.Annotations
		for _, a := range m.APIServiceDefinitions.Owned {
			f.apiServices = append(f.apiServices, a.Name)
		}
		return f
	}
	return f
}

// csvFacts reads the facts of a CSV (JSON).
func csvFacts(csvJSON string) (facts, error) {
	csv, err := manifest.ParseCSV([]byte(csvJSON))
	if err != nil {
		return facts{}, err
	}
	f := facts{from: "the CSV", modesKnown: true, webhooksKnown: true}
	modes, err := csv.InstallModes()
	if err != nil {
		return facts{}, err
	}
	f.modes = supported(modes)
	apis, err := csv.APIServices()
	if err != nil {
		return facts{}, err
	}
	for _, a := range apis.Owned {
		f.apiServices = append(f.apiServices, a.Name)
	}
	if f.webhooks, err = csv.Webhooks(); err != nil {
		return facts{}, err
	}
	f.annotations, _ = csv.Annotations()
	return f, nil
}

// supported names the supported install modes, in order.
func supported(modes []manifest.InstallMode) []string {
	var out []string
	for _, m := range modes {
		if m.Supported && !slices.Contains(out, m.Type) {
			out = append(out, m.Type)
		}
	}
	return out
}

// mediaType is the bundle's media type where the catalog says it: an
// olm.bundle.mediatype property, else the bundle annotation copied into
// the CSV's annotations; "" when it says nothing.
func mediaType(b *declcfg.Bundle, f facts) string {
	for _, p := range b.Properties {
		if p.Type == propertyMediaType {
			var s string
			if json.Unmarshal(p.Value, &s) == nil {
				return s
			}
		}
	}
	return f.annotations[annotation.MediaType]
}

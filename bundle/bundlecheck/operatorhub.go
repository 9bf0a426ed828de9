package bundlecheck

import (
	"fmt"
	"net/mail"
	"net/url"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

// validIconMediaTypes are the icon media types OperatorHub shows.
var validIconMediaTypes = map[string]bool{"image/gif": true, "image/jpeg": true, "image/png": true, "image/svg+xml": true}

// validCapabilities are the operator capability levels.
var validCapabilities = map[string]bool{"Basic Install": true, "Seamless Upgrades": true, "Full Lifecycle": true, "Deep Insights": true, "Auto Pilot": true}

// validCategories are OperatorHub's standard categories.
var validCategories = map[string]bool{
	"AI/Machine Learning": true, "Application Runtime": true, "Big Data": true, "Cloud Provider": true,
	"Developer Tools": true, "Database": true, "Integration & Delivery": true, "Logging & Tracing": true,
	"Monitoring": true, "Modernization & Migration": true, "Networking": true, "OpenShift Optional": true,
	"Security": true, "Storage": true, "Streaming & Messaging": true, "Observability": true,
}

// checkOperatorHub is the operatorhub optional validator: the CSV
// metadata OperatorHub needs, then the APIs removed by the Kubernetes
// version the CSV says it needs at least (opm hands the validator no
// manifests, so it never finds one; the v1beta1 CRDs are looked at here).
func checkOperatorHub(c collector, csv *csvObject, crds []crdObject) {
	if csv == nil {
		return
	}
	name := csv.Metadata.Name
	for _, m := range hubProblems(csv) {
		c.add(csv.file, csvError(name, m))
	}
	mkv := strings.TrimSpace(csv.Spec.MinKubeVersion)
	if mkv == "" {
		return
	}
	minKube, err := semver.ParseTolerant(mkv)
	if err != nil {
		c.add(csv.file, apiError("", name, "unable to use csv.Spec.MinKubeVersion to verify the CRD/Webhook apis because it has an invalid value: "+mkv))
		return
	}
	var removed []string
	for _, crd := range crds {
		if crd.apiVersion == crdV1beta1 {
			removed = append(removed, crd.Metadata.Name)
		}
	}
	if len(removed) > 0 && minKube.GE(semver.Version{Major: 1, Minor: 22}) {
		sort.Strings(removed)
		c.add(csv.file, apiError("", name, fmt.Sprintf("this bundle is using APIs which were deprecated and removed in v1.22. Migrate the API(s) for CRD: (%q)", removed)))
	}
}

// hubProblems are the CSV checks in operator-framework's order.
func hubProblems(csv *csvObject) []string {
	s := csv.Spec
	var out []string
	if strings.TrimSpace(s.Provider.Name) == "" {
		out = append(out, "csv.Spec.Provider.Name not specified")
	}
	for _, m := range s.Maintainers {
		if m.Name == "" || m.Email == "" {
			out = append(out, "csv.Spec.Maintainers elements should contain both name and email")
		}
		if m.Email != "" {
			if _, err := mail.ParseAddress(m.Email); err != nil {
				out = append(out, fmt.Sprintf("csv.Spec.Maintainers email %s is invalid: %v", m.Email, err))
			}
		}
	}
	for _, l := range s.Links {
		if l.Name == "" || l.URL == "" {
			out = append(out, "csv.Spec.Links elements should contain both name and url")
		}
		if l.URL != "" {
			if _, err := url.ParseRequestURI(l.URL); err != nil {
				out = append(out, fmt.Sprintf("csv.Spec.Links url %s is invalid: %v", l.URL, err))
			}
		}
	}
	ann := csv.Metadata.Annotations
	if capability, ok := ann["capabilities"]; ok && !validCapabilities[capability] {
		out = append(out, fmt.Sprintf("csv.Metadata.Annotations.Capabilities %q is not a valid capabilities level", capability))
	}
	if categories, ok := ann["categories"]; ok {
		for _, cat := range strings.Split(categories, ",") {
			if !validCategories[strings.TrimSpace(cat)] {
				out = append(out, fmt.Sprintf("csv.Metadata.Annotations[\"categories\"] value %q is not in the set of standard categories", cat))
			}
		}
	}
	if v, err := semver.Parse(s.Version); err != nil || v.Equals(semver.Version{}) {
		out = append(out, "csv.Spec.Version must be set")
	}
	out = append(out, iconProblems(csv)...)
	if mkv := strings.TrimSpace(s.MinKubeVersion); mkv != "" {
		if _, err := semver.Parse(s.MinKubeVersion); err != nil {
			out = append(out, "csv.Spec.MinKubeVersion has an invalid value: "+s.MinKubeVersion)
		}
	}
	return out
}

func iconProblems(csv *csvObject) []string {
	icons := csv.Spec.Icon
	if icons == nil {
		return nil // only a warning upstream
	}
	var out []string
	if len(icons) != 1 {
		out = append(out, "csv.Spec.Icon should only have one element")
	}
	if len(icons) == 0 {
		return out
	}
	icon := icons[0]
	if icon.MediaType == "" || icon.Data == "" {
		out = append(out, "csv.Spec.Icon elements should contain both data and mediatype")
	}
	if icon.MediaType != "" && !validIconMediaTypes[icon.MediaType] {
		out = append(out, fmt.Sprintf("csv.Spec.Icon %s does not have a valid mediatype", icon.MediaType))
	}
	return out
}

package bundlecheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
)

// csvObject is the part of a ClusterServiceVersion the checks read.
type csvObject struct {
	file       string
	APIVersion string `json:"apiVersion"`
	Metadata   struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations"`
	} `json:"metadata"`
	Spec csvSpec `json:"spec"`
	// specKeys are the keys spec has, to tell an empty spec (opm: a
	// required struct missing) from a partial one.
	specKeys map[string]json.RawMessage
}

type csvSpec struct {
	Install *struct {
		Strategy string `json:"strategy"`
		Spec     *struct {
			Deployments        []json.RawMessage `json:"deployments"`
			Permissions        []json.RawMessage `json:"permissions"`
			ClusterPermissions []json.RawMessage `json:"clusterPermissions"`
		} `json:"spec"`
	} `json:"install"`
	Version        string          `json:"version"`
	Release        json.RawMessage `json:"release"`
	DisplayName    string          `json:"displayName"`
	Description    string          `json:"description"`
	MinKubeVersion string          `json:"minKubeVersion"`
	Replaces       string          `json:"replaces"`
	Maintainers    []struct {
		Name  string `json:"name"`
		Email string `json:"email"`
	} `json:"maintainers"`
	Provider struct {
		Name string `json:"name"`
	} `json:"provider"`
	Links []struct {
		Name string `json:"name"`
		URL  string `json:"url"`
	} `json:"links"`
	Icon []struct {
		Data      string `json:"base64data"`
		MediaType string `json:"mediatype"`
	} `json:"icon"`
	InstallModes []struct {
		Type      string `json:"type"`
		Supported bool   `json:"supported"`
	} `json:"installModes"`
	CustomResourceDefinitions struct {
		Owned []struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Kind    string `json:"kind"`
			Group   string `json:"group"`
		} `json:"owned"`
	} `json:"customresourcedefinitions"`
	APIServiceDefinitions struct {
		Owned []struct {
			Group   string `json:"group"`
			Version string `json:"version"`
			Kind    string `json:"kind"`
		} `json:"owned"`
	} `json:"apiservicedefinitions"`
	WebhookDefinitions []struct {
		ConversionCRDs []string `json:"conversionCRDs"`
	} `json:"webhookdefinitions"`
}

// parseCSV decodes a CSV; a field of the wrong type or a version that is
// no semantic version is an error naming the file, as the typed decoding
// opm does fails on them.
func parseCSV(obj object) (*csvObject, error) {
	csv := &csvObject{file: obj.file}
	if err := json.Unmarshal(obj.json, csv); err != nil {
		return nil, fmt.Errorf("%s: %w", obj.file, err)
	}
	var raw struct {
		Spec map[string]json.RawMessage `json:"spec"`
	}
	_ = json.Unmarshal(obj.json, &raw)
	csv.specKeys = raw.Spec
	if v := csv.Spec.Version; v != "" {
		if _, err := semver.Parse(v); err != nil {
			return nil, fmt.Errorf("%s: spec.version %q: %w", obj.file, v, err)
		}
	}
	return csv, nil
}

// release is spec.release as a string (a number is accepted, as opm does).
func (c *csvObject) release() string {
	raw := bytes.TrimSpace(c.Spec.Release)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}

// checkCSV is operator-framework's CSV validator (errors only; its
// warnings are not printed by opm either).
func checkCSV(c collector, csv *csvObject) {
	name := csv.Metadata.Name
	add := func(msg string) { c.add(csv.file, msg) }
	if err := csvNameProblem(name); err != "" {
		add(csvError(name, "metadata.name "+err))
	}
	if r := csv.Spec.Replaces; r != "" {
		if err := csvNameProblem(r); err != "" {
			add(csvError(name, "spec.replaces "+err))
		}
	}
	for _, m := range checkExamples(csv) {
		add(m)
	}
	for _, m := range checkInstallModes(csv) {
		add(m)
	}
	if v := csv.Spec.MinKubeVersion; strings.TrimSpace(v) != "" {
		if _, err := semver.Parse(v); err != nil {
			add(csvError(name, "csv.Spec.MinKubeVersion has an invalid value: "+v))
		}
	}
	for _, f := range csv.missingFields() {
		add(apiError(f[0], f[1], "required field missing"))
	}
	for _, m := range checkAnnotationCase(csv) {
		add(m)
	}
	if _, v, ok := strings.Cut(csv.APIVersion, "/"); v == "" && (ok || csv.APIVersion == "") {
		add(csvError(name, "'apiVersion' is missing"))
	}
}

// csvNameProblem is why name is no valid CSV name ("" when it is): it
// must be a DNS subdomain and a label value.
func csvNameProblem(name string) string {
	errs := append(k8svalidation.IsDNS1123Subdomain(name), k8svalidation.IsValidLabelValue(name)...)
	if len(errs) == 0 {
		return ""
	}
	return fmt.Sprintf("%q is invalid: %s", name, strings.Join(errs, ","))
}

// missingFields are the required (non-optional) fields of the CSV type
// that are empty, as [field path, "struct"|"field"], descending only into
// structs that are set, in the type's field order.
func (c *csvObject) missingFields() [][2]string {
	if c.Metadata.Name == "" && len(c.Metadata.Annotations) == 0 {
		return [][2]string{{"ObjectMeta", "struct"}}
	}
	if len(c.specKeys) == 0 {
		return [][2]string{{"Spec", "struct"}}
	}
	var out [][2]string
	in := c.Spec.Install
	switch {
	case in == nil || (in.Strategy == "" && in.Spec == nil):
		out = append(out, [2]string{"Spec.InstallStrategy", "struct"})
	default:
		if in.Strategy == "" {
			out = append(out, [2]string{"Spec.InstallStrategy.StrategyName", "field"})
		}
		if s := in.Spec; s != nil && (len(s.Permissions) > 0 || len(s.ClusterPermissions) > 0) && len(s.Deployments) == 0 {
			out = append(out, [2]string{"Spec.InstallStrategy.StrategySpec.DeploymentSpecs", "field"})
		}
	}
	if c.Spec.DisplayName == "" {
		out = append(out, [2]string{"Spec.DisplayName", "field"})
	}
	return out
}

// checkExamples: the alm-examples (or olm.examples) annotation is JSON,
// a list of objects, each of an API the CSV owns.
func checkExamples(csv *csvObject) []string {
	ann := csv.Metadata.Annotations
	text, ok := ann["alm-examples"]
	if !ok {
		text = ann["olm.examples"]
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	var examples []struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal([]byte(text), &examples); err != nil {
		if _, syntax := err.(*json.SyntaxError); syntax {
			return []string{apiError("", err, "invalid example")}
		}
		return []string{apiError("", "not a list of objects", "error decoding example CustomResource")}
	}
	var msgs []string
	provided := map[string]bool{}
	for _, o := range csv.Spec.CustomResourceDefinitions.Owned {
		plural, group, ok := strings.Cut(o.Name, ".")
		if !ok || plural == "" {
			msgs = append(msgs, apiError("", nil, "couldn't parse plural.group from crd name: "+o.Name))
			continue
		}
		provided[gvkString(group, o.Version, o.Kind)] = true
	}
	for _, a := range csv.Spec.APIServiceDefinitions.Owned {
		provided[gvkString(a.Group, a.Version, a.Kind)] = true
	}
	seen := map[string]bool{}
	for _, e := range examples {
		group, version, ok := strings.Cut(e.APIVersion, "/")
		if !ok {
			group, version = "", e.APIVersion
		}
		k := gvkString(group, version, e.Kind)
		if !provided[k] && !seen[k] {
			seen[k] = true
			msgs = append(msgs, apiError("", k, "example must have a provided API"))
		}
	}
	sort.Strings(msgs)
	return msgs
}

func gvkString(group, version, kind string) string { return group + "/" + version + ", Kind=" + kind }

// checkInstallModes: some install mode, no duplicate type (operator-
// framework's check never records the types it saw, so it misses them),
// one supported, and only AllNamespaces with conversion webhooks.
func checkInstallModes(csv *csvObject) []string {
	name := csv.Metadata.Name
	modes := csv.Spec.InstallModes
	if len(modes) == 0 {
		return []string{csvError(name, "install modes not found")}
	}
	var msgs []string
	seen := map[string]bool{}
	anySupported := false
	for _, m := range modes {
		if seen[m.Type] {
			msgs = append(msgs, csvError(name, "duplicate install modes present"))
		}
		seen[m.Type] = true
		anySupported = anySupported || m.Supported
	}
	for _, w := range csv.Spec.WebhookDefinitions {
		if len(w.ConversionCRDs) == 0 {
			continue
		}
		onlyAll := true
		for _, m := range modes {
			if (m.Type == "AllNamespaces") != m.Supported {
				onlyAll = false
			}
		}
		if !onlyAll {
			msgs = append(msgs, csvError(name, "only AllNamespaces InstallModeType is supported when conversionCRDs is present"))
		}
	}
	if !anySupported {
		msgs = append(msgs, csvError(name, "none of InstallModeTypes are supported"))
	}
	return msgs
}

// caseSensitiveAnnotations are the annotation keys OLM reads with their
// exact case.
var caseSensitiveAnnotations = []string{"olm.operatorGroup", "olm.operatorNamespace", "olm.targetNamespaces", "olm.providedAPIs", "olm.skipRange"}

func checkAnnotationCase(csv *csvObject) []string {
	var msgs []string
	for k := range csv.Metadata.Annotations {
		for _, want := range caseSensitiveAnnotations {
			if k != want && strings.EqualFold(k, want) {
				msgs = append(msgs, apiError("", csv.Metadata.Name, fmt.Sprintf("provided annotation %s uses wrong case and should be %s instead", k, want)))
			}
		}
	}
	sort.Strings(msgs)
	return msgs
}

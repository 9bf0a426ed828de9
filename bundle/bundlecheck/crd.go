package bundlecheck

import (
	"encoding/json"
	"fmt"
	"strings"

	k8svalidation "k8s.io/apimachinery/pkg/util/validation"
)

const (
	crdV1      = "apiextensions.k8s.io/v1"
	crdV1beta1 = "apiextensions.k8s.io/v1beta1"
)

// crdObject is the part of a CustomResourceDefinition the checks read.
type crdObject struct {
	file       string
	apiVersion string
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Plural string `json:"plural"`
			Kind   string `json:"kind"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Version  string `json:"version"`
		Versions []struct {
			Name    string `json:"name"`
			Served  bool   `json:"served"`
			Storage bool   `json:"storage"`
		} `json:"versions"`
	} `json:"spec"`
}

// versionNames are the CRD's versions (a v1beta1 spec.version alone
// stands for the single version).
func (c crdObject) versionNames() []string {
	if c.apiVersion == crdV1beta1 && c.Spec.Version != "" {
		return []string{c.Spec.Version}
	}
	var out []string
	for _, v := range c.Spec.Versions {
		out = append(out, v.Name)
	}
	return out
}

// checkCRD checks a CRD of a supported API version (v1beta1 with a
// warning: Kubernetes 1.22 removed it) with the structural rules of
// Kubernetes' CRD validation that need no schema: the name, group, names,
// scope and versions. The OpenAPI schema is not validated (opm filters
// those findings out too).
func checkCRD(c collector, r *Report, obj object) (crdObject, bool) {
	switch obj.apiVersion {
	case crdV1:
	case crdV1beta1:
		r.Warnings = append(r.Warnings, Problem{File: obj.file, Message: "GroupVersionKind apiextensions.k8s.io/v1beta1, Kind=CustomResourceDefinition was deprecated in Kubernetes 1.16+, removed in 1.22. Support for apiextensions.k8s.io/v1beta1 CustomResourceDefinitions will be removed in the future in favor of apiextensions.k8s.io/v1 CustomResourceDefinitions."})
	default:
		c.add(obj.file, "Unsupported api version of CRD: "+obj.apiVersion)
		return crdObject{}, false
	}
	crd := crdObject{file: obj.file, apiVersion: obj.apiVersion}
	if err := json.Unmarshal(obj.json, &crd); err != nil {
		c.add(obj.file, fmt.Sprintf("%s: %v", obj.file, err))
		return crdObject{}, false
	}
	for _, m := range crd.problems() {
		c.add(obj.file, m)
	}
	return crd, true
}

// fieldError prints a Kubernetes field error inside an operator-framework
// error, as the CRD validator reports it.
func fieldError(path string, value any, kind, detail string) string {
	var text string
	switch {
	case kind == "Required value":
		value = ""
		text = fmt.Sprintf("%s: %s", path, kind)
	default:
		text = fmt.Sprintf("%s: %s: %q", path, kind, value)
	}
	if detail != "" {
		text += ": " + detail
	}
	return apiError(path, value, text)
}

func (c crdObject) problems() []string {
	var out []string
	s := c.Spec
	if want := s.Names.Plural + "." + s.Group; c.Metadata.Name != want {
		out = append(out, fieldError("metadata.name", c.Metadata.Name, "Invalid value", `must be spec.names.plural+"."+spec.group`))
	}
	switch {
	case s.Group == "":
		out = append(out, fieldError("spec.group", "", "Required value", ""))
	case !strings.Contains(s.Group, "."):
		out = append(out, fieldError("spec.group", s.Group, "Invalid value", "should be a domain with at least one dot"))
	}
	if s.Names.Plural == "" {
		out = append(out, fieldError("spec.names.plural", "", "Required value", ""))
	} else if errs := k8svalidation.IsDNS1035Label(s.Names.Plural); len(errs) > 0 {
		out = append(out, fieldError("spec.names.plural", s.Names.Plural, "Invalid value", strings.Join(errs, ",")))
	}
	if s.Names.Kind == "" {
		out = append(out, fieldError("spec.names.kind", "", "Required value", ""))
	}
	switch s.Scope {
	case "Cluster", "Namespaced":
	case "":
		out = append(out, fieldError("spec.scope", "", "Required value", ""))
	default:
		out = append(out, fieldError("spec.scope", s.Scope, "Unsupported value", `supported values: "Cluster", "Namespaced"`))
	}
	return append(out, c.versionProblems()...)
}

func (c crdObject) versionProblems() []string {
	var out []string
	s := c.Spec
	if c.apiVersion == crdV1beta1 && s.Version != "" && len(s.Versions) > 0 && s.Versions[0].Name != s.Version {
		out = append(out, fieldError("spec.version", s.Version, "Invalid value", "must match the first version in spec.versions"))
	}
	if len(s.Versions) == 0 {
		if c.apiVersion == crdV1beta1 && s.Version != "" {
			return out // defaulted to one served, stored version
		}
		return append(out, fieldError("spec.versions", "", "Required value", ""))
	}
	storage := 0
	seen := map[string]bool{}
	for i, v := range s.Versions {
		if v.Storage {
			storage++
		}
		if seen[v.Name] {
			out = append(out, fieldError("spec.versions", v.Name, "Invalid value", "must contain unique version names"))
		}
		seen[v.Name] = true
		if errs := k8svalidation.IsDNS1035Label(v.Name); len(errs) > 0 {
			out = append(out, fieldError(fmt.Sprintf("spec.versions[%d].name", i), v.Name, "Invalid value", strings.Join(errs, ",")))
		}
	}
	if storage != 1 {
		out = append(out, fieldError("spec.versions", fmt.Sprintf("%d storage versions", storage), "Invalid value", "must have exactly one version marked as storage version"))
	}
	return out
}

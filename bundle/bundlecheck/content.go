package bundlecheck

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/bundle"
)

const (
	kindCSV = "ClusterServiceVersion"
	kindCRD = "CustomResourceDefinition"
)

// registryV1Kinds are the kinds a registry+v1 bundle may hold (opm's
// supported resources).
var registryV1Kinds = map[string]bool{
	kindCSV: true, kindCRD: true, "ClusterRole": true, "ClusterRoleBinding": true, "Service": true,
	"ServiceAccount": true, "Role": true, "RoleBinding": true, "PrometheusRule": true, "ServiceMonitor": true,
	"Secret": true, "ConfigMap": true, "PodDisruptionBudget": true, "PriorityClass": true,
	"VerticalPodAutoscaler": true, "ConsoleYAMLSample": true, "ConsoleQuickStart": true,
	"ConsoleCLIDownload": true, "ConsoleLink": true, "ConsolePlugin": true, "NetworkPolicy": true, "PodMonitor": true,
}

// object is one decoded manifest: its file, JSON (first YAML document)
// and type.
type object struct {
	file       string
	json       []byte
	apiVersion string
	kind       string
	name       string
}

// checkContent is opm's ValidateBundleContent: nothing to check for a
// helm chart; otherwise each top-level manifests/ file decoded and checked
// by kind, then the bundle as a whole, then the optional validators.
func checkContent(fsys fs.FS, r *Report, o options) {
	if r.MediaType == bundle.MediaTypeHelm {
		return
	}
	c := collector{&r.Content}
	objs := readObjects(fsys, c)
	var csv *csvObject
	var crds []crdObject
	sawCSV := false
	for _, obj := range objs {
		if r.MediaType == bundle.MediaTypeRegistryV1 && !registryV1Kinds[obj.kind] {
			c.add(obj.file, fmt.Sprintf("%s is not supported type for registryV1 bundle: %s", obj.kind, obj.file))
			continue
		}
		switch obj.kind {
		case kindCSV:
			if csv != nil {
				// opm keeps the last; OLM installs one CSV per bundle.
				c.add(obj.file, fmt.Sprintf("%s: a second ClusterServiceVersion (the first is %s)", obj.file, csv.file))
				continue
			}
			sawCSV = true
			parsed, err := parseCSV(obj)
			if err != nil {
				c.add(obj.file, err.Error())
				continue
			}
			csv = parsed
			checkCSV(c, csv)
		case kindCRD:
			crd, ok := checkCRD(c, r, obj)
			if ok {
				crds = append(crds, crd)
			}
		default:
			checkObjectMeta(c, obj)
		}
	}
	switch {
	case csv != nil:
		checkBundle(c, csv, crds)
	case !sawCSV && len(objs) > 0:
		c.add("manifests/", "no ClusterServiceVersion among the manifests")
	}
	if o.optional[OperatorHub] {
		checkOperatorHub(c, csv, crds)
	}
	if o.optional[BundleObjects] {
		checkBundleObjects(c, objs)
	}
}

// readObjects decodes the first document of every top-level entry of
// manifests/, in name order (later documents are ignored, as opm does);
// what cannot be read or decoded is reported.
func readObjects(fsys fs.FS, c collector) []object {
	ents, err := fs.ReadDir(fsys, "manifests")
	if err != nil {
		c.add("manifests/", err.Error())
		return nil
	}
	var objs []object
	for _, e := range ents {
		p := path.Join("manifests", e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			c.add(p, fmt.Sprintf("Unable to read file %s in supported types", p))
			continue
		}
		obj, problem := decodeObject(p, data)
		if problem != "" {
			c.add(p, problem)
			continue
		}
		objs = append(objs, obj)
	}
	return objs
}

// decodeObject decodes the manifest p, or says why it cannot (in opm's
// words where it has some).
func decodeObject(p string, data []byte) (object, string) {
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return object{}, fmt.Sprintf("%s: %v", p, err)
	}
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if string(js) == "null" || json.Unmarshal(js, &head) != nil {
		return object{}, p + ": not a Kubernetes object"
	}
	if head.Kind == "" {
		return object{}, "Object 'Kind' is missing in " + p
	}
	return object{file: p, json: js, apiVersion: head.APIVersion, kind: head.Kind, name: head.Metadata.Name}, ""
}

// checkObjectMeta is opm's "kubectl-able" check of objects other than
// CSVs and CRDs: Kubernetes' ObjectMeta validation for a cluster-scoped
// object (so a namespace is refused, as opm does).
func checkObjectMeta(c collector, obj object) {
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(obj.json, &m); err != nil {
		c.add(obj.file, fmt.Sprintf("%s: metadata: %v", obj.file, err))
		return
	}
	noName := func(string, bool) []string { return nil }
	if errs := apivalidation.ValidateObjectMeta(&m.Metadata, false, noName, field.NewPath("metadata")); len(errs) > 0 {
		c.add(obj.file, fmt.Sprintf("error validating object metadata: %s. %s", errs.ToAggregate(), obj.file))
	}
}

// apiError formats a finding as operator-framework's validation errors
// print: "Error: Field <f>, Value <v>: <detail>" with the parts present.
func apiError(fieldPath string, value any, detail string) string {
	var b strings.Builder
	b.WriteString("Error: ")
	if fieldPath != "" {
		b.WriteString("Field " + fieldPath)
		if value != nil {
			b.WriteString(", ")
		}
	}
	if value != nil {
		fmt.Fprintf(&b, "Value %v", value)
	}
	if detail != "" {
		b.WriteString(": " + detail)
	}
	return b.String()
}

// csvError is an invalid-CSV finding: "Error: Value : (<csv>) <detail>".
func csvError(csvName, detail string) string {
	return apiError("", "", fmt.Sprintf("(%s) %s", csvName, detail))
}

// definitionKey is an owned CRD as the bundle check prints it.
type definitionKey struct {
	Group, Kind, Name, Version string
}

// checkBundle is opm's bundle validator: every CRD the CSV owns is in the
// bundle, and a CSV with a release has no olm.substitutesFor.
func checkBundle(c collector, csv *csvObject, crds []crdObject) {
	have := map[definitionKey]bool{}
	for _, crd := range crds {
		for _, v := range crd.versionNames() {
			have[definitionKey{Name: crd.Metadata.Name, Version: v, Kind: crd.Spec.Names.Kind}] = true
		}
	}
	for _, o := range csv.Spec.CustomResourceDefinitions.Owned {
		k := definitionKey{Name: o.Name, Version: o.Version, Kind: o.Kind}
		if !have[k] {
			c.add(csv.file, apiError("", definitionKey{Group: o.Group, Kind: o.Kind, Name: o.Name, Version: o.Version},
				fmt.Sprintf("owned CRD %s/%s not found in bundle %q", o.Name, o.Version, csv.Metadata.Name)))
		}
	}
	if rel, sub := csv.release(), csv.Metadata.Annotations["olm.substitutesFor"]; rel != "" && sub != "" {
		c.add(csv.file, apiError("", definitionKey{}, fmt.Sprintf("bundle %q cannot have both a release version (%q) and olm.substitutesFor annotation (%q)", csv.Metadata.Name, rel, sub)))
	}
}

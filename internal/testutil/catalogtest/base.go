package catalogtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

// base is what every generated bundle is stamped from: CSV templates with
// placeholders, encoded once (the first bundle of a package, without
// edges; the others, with replaces and with replaces and skips), and the
// other manifests.
type base struct {
	first, replaces, rest string
	objs                  []json.RawMessage
	group                 string
	digests, images       []string
	provided, required    []manifest.GVK
	properties            []dbbuild.Property
	dependencies          []dbbuild.Dependency
}

// Placeholders of the CSV templates.
const (
	phName     = "@@NAME@@"
	phVersion  = "@@VERSION@@"
	phGroup    = "@@GROUP@@"
	phReplaces = "@@REPLACES@@"
	phSkip     = "@@SKIP@@"
)

func phDigest(k int) string { return fmt.Sprintf("@@DIGEST%d@@", k) }

// readBase reads the base bundle directory dir.
func readBase(dir string) (*base, error) {
	b, err := dbbuild.ReadBundleDir(dir)
	if err != nil {
		return nil, err
	}
	csv := b.CSV
	var objs []json.RawMessage
	for _, o := range b.Objects {
		var k struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(o, &k) == nil && k.Kind == "ClusterServiceVersion" {
			if csv == nil {
				csv = o
			}
			continue
		}
		objs = append(objs, o)
	}
	if csv == nil {
		return nil, fmt.Errorf("catalogtest: base bundle %s has no ClusterServiceVersion", dir)
	}
	out, err := newBase(csv, objs)
	if err != nil {
		return nil, fmt.Errorf("catalogtest: base bundle %s: %w", dir, err)
	}
	out.properties, out.dependencies = b.Properties, b.Dependencies
	return out, nil
}

// builtinBase makes the built-in manifests, about n bytes of JSON (at
// least their minimal size, some 1.9 KB): a CRD, a Service, a ConfigMap
// and a CSV, the objects opm migrate inlines for a typical bundle, with
// HTML characters, escaped JSON and line breaks in their strings. Half of
// the padding goes to the CSV's description, half to the CRD's schema.
func builtinBase(n int) (*base, error) {
	objs := builtinManifests(0, 0)
	size := 0
	for _, o := range objs {
		size += len(o)
	}
	pad := max(0, n-size) / 2
	objs = builtinManifests(pad/len(descriptionLine), pad/len(fmt.Sprintf(schemaField, 0)))
	return newBase(objs[len(objs)-1], objs[:len(objs)-1])
}

const (
	descriptionLine = "Manages the lifecycle of a database: install, upgrade, backup & restore <b>safely</b>. "
	schemaField     = `"field%03d":{"type":"string","description":"a configurable field of the spec"},`
	builtinImage    = "example.com/example/operator:v1"
)

// builtinManifests returns the built-in manifests, the CSV last: its
// description of lines lines, the CRD's schema of fields fields.
func builtinManifests(lines, fields int) []json.RawMessage {
	var schema strings.Builder
	for f := range fields {
		fmt.Fprintf(&schema, schemaField, f)
	}
	crd := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.base.example.com"},"spec":{"group":"base.example.com","names":{"kind":"Widget","plural":"widgets"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{%s"x":{"type":"string"}}}}}]}}`, schema.String())
	svc := `{"apiVersion":"v1","kind":"Service","metadata":{"labels":{"app":"base.example.com"},"name":"operator-metrics"},"spec":{"ports":[{"name":"https","port":8443,"targetPort":8443}],"selector":{"app":"base.example.com"}}}`
	cm := `{"apiVersion":"v1","data":{"config.yaml":"replicas: 1\nlogLevel: info\nfeatures:\n  - a\n  - b\n"},"kind":"ConfigMap","metadata":{"name":"operator-config"}}`
	examples := `[{"apiVersion":"base.example.com/v1","kind":"Widget","metadata":{"name":"example"},"spec":{"size":3}}]`
	csv := fmt.Sprintf(`{"apiVersion":"operators.coreos.com/v1alpha1","kind":"ClusterServiceVersion","metadata":{"name":"base.v0.0.0","annotations":{"alm-examples":%[3]q,"capabilities":"Full Lifecycle","containerImage":%[1]q}},"spec":{"displayName":"Synthetic operator","description":%[2]q,"version":"0.0.0","customresourcedefinitions":{"owned":[{"name":"widgets.base.example.com","version":"v1","kind":"Widget"}],"required":[{"name":"servicemonitors.monitoring.coreos.com","version":"v1","kind":"ServiceMonitor"}]},"install":{"strategy":"deployment","spec":{"deployments":[{"name":"operator","spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"manager","image":%[1]q}]}}}}]}},"relatedImages":[{"name":"operator","image":%[1]q}]}}`, builtinImage, strings.Repeat(descriptionLine, lines), examples)
	return []json.RawMessage{json.RawMessage(crd), json.RawMessage(svc), json.RawMessage(cm), json.RawMessage(csv)}
}

// newBase prepares the templates from a base CSV and the other manifests.
func newBase(csv json.RawMessage, objs []json.RawMessage) (*base, error) {
	provided, required, images, err := csvFacts(csv)
	if err != nil {
		return nil, fmt.Errorf("CSV: %w", err)
	}
	b := &base{objs: objs, provided: provided, required: required, images: images}
	if len(b.provided) > 0 {
		b.group = b.provided[0].Group
	}
	for _, img := range b.images {
		if _, dg, ok := strings.Cut(img, "@sha256:"); ok {
			b.digests = append(b.digests, dg)
		}
	}
	if b.first, err = b.template(csv, false, false); err != nil {
		return nil, err
	}
	if b.replaces, err = b.template(csv, true, false); err != nil {
		return nil, err
	}
	if b.rest, err = b.template(csv, true, true); err != nil {
		return nil, err
	}
	return b, nil
}

// template encodes the base CSV with placeholders for everything that
// varies per bundle.
func (b *base) template(csv []byte, replaces, skips bool) (string, error) {
	raw := csv
	if b.group != "" {
		raw = bytes.ReplaceAll(raw, []byte(b.group), []byte(phGroup))
	}
	for k, d := range b.digests {
		raw = bytes.ReplaceAll(raw, []byte(d), []byte(phDigest(k)))
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return "", fmt.Errorf("decode CSV: %w", err)
	}
	md, _ := doc["metadata"].(map[string]any)
	spec, _ := doc["spec"].(map[string]any)
	if md == nil || spec == nil {
		return "", fmt.Errorf("CSV lacks metadata or spec")
	}
	md["name"] = phName
	if ann, ok := md["annotations"].(map[string]any); ok {
		delete(ann, "olm.skipRange")
		delete(ann, "olm.substitutesFor")
	}
	spec["version"] = phVersion
	delete(spec, "replaces")
	delete(spec, "skips")
	if replaces {
		spec["replaces"] = phReplaces
	}
	if skips {
		spec["skips"] = []any{phSkip}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("encode CSV: %w", err)
	}
	return string(out), nil
}

// forPackage returns the non-CSV manifests and the APIs of package pkg:
// the base group renamed to the package's.
func (b *base) forPackage(pkg string) (objs []json.RawMessage, provided, required []manifest.GVK) {
	if b.group == "" {
		return b.objs, b.provided, b.required
	}
	group := packageGroup(pkg)
	for _, o := range b.objs {
		objs = append(objs, bytes.ReplaceAll(o, []byte(b.group), []byte(group)))
	}
	rename := func(in []manifest.GVK) []manifest.GVK {
		out := make([]manifest.GVK, len(in))
		for i, g := range in {
			g.Group = strings.ReplaceAll(g.Group, b.group, group)
			out[i] = g
		}
		return out
	}
	return objs, rename(b.provided), rename(b.required)
}

// csvFacts reads what the templates need from the base CSV: the APIs it
// provides (owned CRDs, then owned API services) and requires, and its
// images (per deployment the init containers, then the containers, then
// the related images, without repeats: the order the legacy loader stores
// them in).
func csvFacts(raw []byte) (provided, required []manifest.GVK, images []string, err error) {
	csv, err := manifest.ParseCSV(raw)
	if err != nil {
		return nil, nil, nil, err
	}
	crds, err := csv.CRDs()
	if err != nil {
		return nil, nil, nil, err
	}
	svcs, err := csv.APIServices()
	if err != nil {
		return nil, nil, nil, err
	}
	var owned []manifest.API
	for _, d := range crds.Owned {
		owned = append(owned, d.API())
	}
	for _, d := range svcs.Owned {
		owned = append(owned, d.API())
	}
	req, err := csv.RequiredAPIs()
	if err != nil {
		return nil, nil, nil, err
	}
	containers, err := csv.Containers()
	if err != nil {
		return nil, nil, nil, err
	}
	related, err := csv.RelatedImages()
	if err != nil {
		return nil, nil, nil, err
	}
	seen := map[string]bool{}
	add := func(img string) {
		if img != "" && !seen[img] {
			seen[img] = true
			images = append(images, img)
		}
	}
	for _, c := range containers {
		add(c.Image)
	}
	for _, r := range related {
		add(r.Image)
	}
	return gvks(manifest.DedupAPIs(owned)), gvks(req), images, nil
}

func gvks(apis []manifest.API) []manifest.GVK {
	var out []manifest.GVK
	for _, a := range apis {
		out = append(out, a.GVK)
	}
	return out
}

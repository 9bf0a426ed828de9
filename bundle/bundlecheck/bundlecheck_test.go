package bundlecheck

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
)

const (
	cockroach    = "../../fixtures/bundles/community/cockroachdb/5.0.4"
	cockroachCSV = "manifests/cockroachdb.clusterserviceversion.yaml"
	cockroachCRD = "manifests/charts.operatorhub.io_cockroachdbs.yaml"
	annFile      = "metadata/annotations.yaml"
)

// loadBundle reads the bundle dir into memory, so cases can break a copy.
func loadBundle(t testing.TB, dir string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	require.NoError(t, err)
	return m
}

// edit returns a copy of b with files replaced ("" removes one).
func edit(b fstest.MapFS, files map[string]string) fstest.MapFS {
	out := fstest.MapFS{}
	for k, v := range b {
		out[k] = v
	}
	for k, v := range files {
		if v == "" {
			delete(out, k)
			continue
		}
		out[k] = &fstest.MapFile{Data: []byte(v)}
	}
	return out
}

// editYAML returns a copy of b whose file p was changed by f.
func editYAML(t testing.TB, b fstest.MapFS, p string, f func(obj map[string]any)) fstest.MapFS {
	t.Helper()
	var obj map[string]any
	require.NoError(t, yaml.Unmarshal(b[p].Data, &obj))
	f(obj)
	data, err := yaml.Marshal(obj)
	require.NoError(t, err)
	return edit(b, map[string]string{p: string(data)})
}

// get walks nested maps by key.
func get(obj map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := obj[k].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[k] = next
		}
		obj = next
	}
	return obj
}

func annotations(extra map[string]string) string {
	ann := map[string]any{
		annotation.MediaType: "registry+v1", annotation.Manifests: "manifests/", annotation.Metadata: "metadata/",
		annotation.Package: "cockroachdb", annotation.Channels: "stable-5.x", annotation.DefaultChannel: "stable-5.x",
	}
	for k, v := range extra {
		if v == "-" {
			delete(ann, k)
			continue
		}
		ann[k] = v
	}
	data, _ := yaml.Marshal(map[string]any{"annotations": ann})
	return string(data)
}

func messages(ps []Problem) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Message)
	}
	return out
}

func TestValidateFixtures(t *testing.T) {
	for _, dir := range []string{cockroach, "../../fixtures/bundles/community/kiali/1.36.0", "../../fixtures/bundles/community/service-binding-operator/0.8.0"} {
		r := Validate(os.DirFS(dir), WithOptional(OperatorHub, BundleObjects))
		assert.NoError(t, r.Err(), dir)
		assert.Equal(t, bundle.MediaTypeRegistryV1, r.MediaType)
	}
	// v1beta1 CRDs are a warning, not an error.
	r := Validate(os.DirFS("../../fixtures/bundles/community/kiali/1.3.1"))
	require.NoError(t, r.Err())
	require.NotEmpty(t, r.Warnings)
	assert.Contains(t, r.Warnings[0].Message, "apiextensions.k8s.io/v1beta1, Kind=CustomResourceDefinition was deprecated")
}

// TestValidateFormat: each format message of opm on a broken copy of a
// good bundle; the content is not looked at then.
func TestValidateFormat(t *testing.T) {
	b := loadBundle(t, cockroach)
	const media, manifests, metadata = `"` + annotation.MediaType + `"`, `"` + annotation.Manifests + `"`, `"` + annotation.Metadata + `"`
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"no manifests", map[string]string{cockroachCSV: "", cockroachCRD: "", "manifests/cockroachdb-controller-manager-metrics-service_v1_service.yaml": "", "manifests/cockroachdb-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml": ""},
			[]string{"Unable to locate manifests directory"}},
		{"no metadata", map[string]string{annFile: ""}, []string{"Unable to locate metadata directory"}},
		{"no annotations", map[string]string{annFile: "foo: bar\n"}, []string{"Could not find annotations file"}},
		{"keys missing", map[string]string{annFile: annotations(map[string]string{annotation.MediaType: "-", annotation.Manifests: "-", annotation.Metadata: "-"})},
			[]string{"Missing annotation " + media, "Missing annotation " + manifests, "Missing annotation " + metadata,
				"Expecting annotation " + media + ` to have value "registry+v1" instead of ""`}},
		{"media type", map[string]string{annFile: annotations(map[string]string{annotation.MediaType: "plain"})},
			[]string{"Expecting annotation " + media + ` to have value "registry+v1" instead of "plain"`}},
		{"manifests value", map[string]string{annFile: annotations(map[string]string{annotation.Manifests: "manifest/"})},
			[]string{"Expecting annotation " + manifests + ` to have value "manifests/" instead of "manifest/"`}},
		{"metadata value", map[string]string{annFile: annotations(map[string]string{annotation.Metadata: "meta/"})},
			[]string{"Expecting annotation " + metadata + ` to have value "metadata/" instead of "meta/"`}},
		{"empty package", map[string]string{annFile: annotations(map[string]string{annotation.Package: ""})},
			[]string{`Expecting annotation "` + annotation.Package + `" to have non-empty value`}},
		{"no channels", map[string]string{annFile: annotations(map[string]string{annotation.Channels: "-"})},
			[]string{`Missing annotation "` + annotation.Channels + `"`, `Expecting annotation "` + annotation.Channels + `" to have non-empty value`}},
		{"empty default", map[string]string{annFile: annotations(map[string]string{annotation.DefaultChannel: ""})},
			[]string{`Expecting annotation "` + annotation.DefaultChannel + `" to have non-empty value`}},
		{"no manifest files", map[string]string{cockroachCSV: "", cockroachCRD: "", "manifests/cockroachdb-controller-manager-metrics-service_v1_service.yaml": "", "manifests/cockroachdb-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml": "", "manifests/sub/x.yaml": "a: b\n"},
			[]string{"The directory manifests/ contains no yaml files"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Validate(edit(b, tc.files))
			assert.Equal(t, tc.want, messages(r.Format))
			assert.Empty(t, r.Content)
			assert.Equal(t, StageFormat, r.Stage())
			var e *Error
			require.ErrorAs(t, r.Err(), &e)
			assert.Equal(t, StageFormat, e.Stage)
		})
	}
	t.Run("annotations under any name", func(t *testing.T) {
		r := Validate(edit(b, map[string]string{annFile: "", "metadata/z.yml": annotations(nil), "metadata/a.yaml": "other: 1\n"}))
		assert.NoError(t, r.Err())
	})
}

func TestValidateDependencies(t *testing.T) {
	b := loadBundle(t, cockroach)
	for _, tc := range []struct {
		name, deps string
		want       []string
	}{
		{"valid", `[{type: olm.gvk, value: {group: g.io, version: v1, kind: K}}, {type: olm.package, value: {packageName: p, version: ">=1.0.0 <2.0.0"}},
			{type: olm.label, value: {label: l}}, {type: olm.constraint, value: {cel: {rule: "true"}}},
			{type: olm.constraint, value: {failureMessage: m, all: {constraints: [{gvk: {group: g.io, version: v1, kind: K}}, {not: {constraints: [{package: {packageName: p, versionRange: "<1.0.0"}}]}}]}}}]`, nil},
		{"gvk", `[{type: olm.gvk, value: {}}]`, []string{"API Group is empty", "API Version is empty", "API Kind is empty"}},
		{"package", `[{type: olm.package, value: {}}, {type: olm.package, value: {packageName: p, version: "one"}}]`,
			[]string{"Package name is empty", "Package version is empty", "Invalid semver format version"}},
		{"label", `[{type: olm.label, value: {}}]`, []string{"Label information is missing"}},
		{"cel missing", `[{type: olm.constraint, value: {failureMessage: m}}]`, []string{"The CEL field is missing"}},
		{"cel empty", `[{type: olm.constraint, value: {cel: {rule: ""}}}]`, []string{"The CEL expression is missing"}},
		{"constraint nested", `[{type: olm.constraint, value: {any: {constraints: [{package: {packageName: p, versionRange: "x"}}, {gvk: {group: g}}]}}}]`,
			[]string{"Invalid semver format version", "API Version is empty", "API Kind is empty"}},
		{"constraint two", `[{type: olm.constraint, value: {cel: {rule: "true"}, gvk: {group: g, version: v, kind: k}}}]`,
			[]string{"olm.constraint must have exactly one of cel, gvk, package, all, any, not (has cel, gvk)"}},
		{"constraint empty compound", `[{type: olm.constraint, value: {all: {constraints: []}}}]`, []string{"olm.constraint all has no constraints"}},
		{"constraint unknown field", `[{type: olm.constraint, value: {cell: {}}}]`,
			[]string{`couldn't parse dependency of type olm.constraint: json: unknown field "cell"`}},
		{"bad value", `[{type: olm.gvk, value: "x"}]`,
			[]string{"couldn't parse dependency of type olm.gvk: json: cannot unmarshal string into Go value of type bundlecheck.gvkValue"}},
		{"unknown type", `[{type: olm.foo, value: {}}]`, []string{"unsupported dependency type olm.foo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Validate(edit(b, map[string]string{"metadata/dependencies.yaml": "dependencies: " + tc.deps + "\n"}))
			assert.Equal(t, tc.want, messages(r.Format))
		})
	}
}

// quxCSV is the minimal CSV of the reference's example.
const quxCSV = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: qux.v1.0.0\nspec:\n  displayName: Qux\n  version: 1.0.0\n"

func TestValidateMinimalCSV(t *testing.T) {
	b := fstest.MapFS{
		"manifests/qux.csv.yaml": {Data: []byte(quxCSV)},
		annFile:                  {Data: []byte(annotations(map[string]string{annotation.Package: "qux"}))},
	}
	r := Validate(b)
	require.Error(t, r.Err())
	assert.Equal(t, "Bundle validation errors: Error: Value : (qux.v1.0.0) install modes not found,Error: Field Spec.InstallStrategy, Value struct: required field missing", r.Err().Error())
	assert.Equal(t, StageContent, r.Stage())
	assert.Equal(t, "manifests/qux.csv.yaml", r.Content[0].File)
}

// TestValidateContent: each content message on a broken copy.
func TestValidateContent(t *testing.T) {
	b := loadBundle(t, cockroach)
	csv := func(f func(csv map[string]any)) fstest.MapFS { return editYAML(t, b, cockroachCSV, f) }
	crd := func(f func(crd map[string]any)) fstest.MapFS { return editYAML(t, b, cockroachCRD, f) }
	const svc = "manifests/cockroachdb-controller-manager-metrics-service_v1_service.yaml"
	const crdFixture = "manifests/charts.operatorhub.io_cockroachdbs.yaml"
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want []string
	}{
		{"unsupported kind", edit(b, map[string]string{"manifests/q.yaml": "apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: q\n"}),
			[]string{"ResourceQuota is not supported type for registryV1 bundle: manifests/q.yaml"}},
		{"no kind", edit(b, map[string]string{"manifests/x.yaml": "apiVersion: v1\nmetadata:\n  name: q\n"}),
			[]string{"Object 'Kind' is missing in manifests/x.yaml"}},
		{"second csv", edit(b, map[string]string{"manifests/zz.csv.yaml": quxCSV}),
			[]string{"manifests/zz.csv.yaml: a second ClusterServiceVersion (the first is " + cockroachCSV + ")"}},
		{"first document only", edit(b, map[string]string{"manifests/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n---\napiVersion: v1\nkind: ResourceQuota\n"}), nil},
		{"empty file", edit(b, map[string]string{"manifests/x.yaml": "\n"}), []string{"manifests/x.yaml: not a Kubernetes object"}},
		{"directory", edit(b, map[string]string{"manifests/sub/x.yaml": "a: b\n"}), []string{"Unable to read file manifests/sub in supported types"}},
		{"not yaml", edit(b, map[string]string{"manifests/x.yaml": "- a\n- b\n"}), []string{"manifests/x.yaml: not a Kubernetes object"}},
		{"csv name", csv(func(c map[string]any) { get(c, "metadata")["name"] = "Cockroach_DB" }),
			[]string{`Error: Value : (Cockroach_DB) metadata.name "Cockroach_DB" is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"replaces", csv(func(c map[string]any) { get(c, "spec")["replaces"] = "a..b" }),
			[]string{`Error: Value : (cockroachdb.v5.0.4) spec.replaces "a..b" is invalid: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
		{"install modes", csv(func(c map[string]any) {
			get(c, "spec")["installModes"] = []any{map[string]any{"type": "OwnNamespace"}, map[string]any{"type": "OwnNamespace"}}
		}), []string{"Error: Value : (cockroachdb.v5.0.4) duplicate install modes present", "Error: Value : (cockroachdb.v5.0.4) none of InstallModeTypes are supported"}},
		{"min kube version", csv(func(c map[string]any) { get(c, "spec")["minKubeVersion"] = "1.8" }),
			[]string{"Error: Value : (cockroachdb.v5.0.4) csv.Spec.MinKubeVersion has an invalid value: 1.8"}},
		{"display name", csv(func(c map[string]any) { delete(get(c, "spec"), "displayName") }),
			[]string{"Error: Field Spec.DisplayName, Value field: required field missing"}},
		{"strategy name", csv(func(c map[string]any) { delete(get(c, "spec", "install"), "strategy") }),
			[]string{"Error: Field Spec.InstallStrategy.StrategyName, Value field: required field missing"}},
		{"empty spec", csv(func(c map[string]any) { c["spec"] = map[string]any{} }),
			[]string{"Error: Value charts.operatorhub.io/v1alpha1, Kind=Cockroachdb: example must have a provided API",
				"Error: Value : (cockroachdb.v5.0.4) install modes not found", "Error: Field Spec, Value struct: required field missing"}},
		{"example", csv(func(c map[string]any) {
			get(c, "metadata", "annotations")["alm-examples"] = `[{"apiVersion": "other.io/v1", "kind": "Other"}]`
		}), []string{"Error: Value other.io/v1, Kind=Other: example must have a provided API"}},
		{"example syntax", csv(func(c map[string]any) { get(c, "metadata", "annotations")["alm-examples"] = `[{` }),
			[]string{"Error: Value unexpected end of JSON input: invalid example"}},
		{"example object", csv(func(c map[string]any) { get(c, "metadata", "annotations")["alm-examples"] = `{}` }),
			[]string{"Error: Value not a list of objects: error decoding example CustomResource"}},
		{"annotation case", csv(func(c map[string]any) { get(c, "metadata", "annotations")["olm.skiprange"] = "<5.0.4" }),
			[]string{"Error: Value cockroachdb.v5.0.4: provided annotation olm.skiprange uses wrong case and should be olm.skipRange instead"}},
		{"version", csv(func(c map[string]any) { get(c, "spec")["version"] = "five" }),
			[]string{`manifests/cockroachdb.clusterserviceversion.yaml: spec.version "five": No Major.Minor.Patch elements found`}},
		{"release and substitutes", csv(func(c map[string]any) {
			get(c, "spec")["release"] = "1"
			get(c, "metadata", "annotations")["olm.substitutesFor"] = "cockroachdb.v5.0.3"
		}), []string{`Error: Value {   }: bundle "cockroachdb.v5.0.4" cannot have both a release version ("1") and olm.substitutesFor annotation ("cockroachdb.v5.0.3")`}},
		{"owned crd missing", edit(b, map[string]string{crdFixture: ""}),
			[]string{`Error: Value { Cockroachdb cockroachdbs.charts.operatorhub.io v1alpha1}: owned CRD cockroachdbs.charts.operatorhub.io/v1alpha1 not found in bundle "cockroachdb.v5.0.4"`}},
		{"crd version", crd(func(c map[string]any) { c["apiVersion"] = "apiextensions.k8s.io/v2" }),
			[]string{"Unsupported api version of CRD: apiextensions.k8s.io/v2",
				`Error: Value { Cockroachdb cockroachdbs.charts.operatorhub.io v1alpha1}: owned CRD cockroachdbs.charts.operatorhub.io/v1alpha1 not found in bundle "cockroachdb.v5.0.4"`}},
		{"crd names", crd(func(c map[string]any) {
			get(c, "spec")["scope"] = "Global"
			get(c, "spec")["group"] = "charts"
		}), []string{`Error: Field metadata.name, Value cockroachdbs.charts.operatorhub.io: metadata.name: Invalid value: "cockroachdbs.charts.operatorhub.io": must be spec.names.plural+"."+spec.group`,
			`Error: Field spec.group, Value charts: spec.group: Invalid value: "charts": should be a domain with at least one dot`,
			`Error: Field spec.scope, Value Global: spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"`}},
		{"crd versions", crd(func(c map[string]any) {
			v := get(c, "spec")["versions"].([]any)
			get(c, "spec")["versions"] = append(v, v[0])
		}), []string{`Error: Field spec.versions, Value v1alpha1: spec.versions: Invalid value: "v1alpha1": must contain unique version names`,
			`Error: Field spec.versions, Value 2 storage versions: spec.versions: Invalid value: "2 storage versions": must have exactly one version marked as storage version`}},
		{"crd kind", crd(func(c map[string]any) { delete(get(c, "spec", "names"), "kind") }),
			[]string{"Error: Field spec.names.kind, Value : spec.names.kind: Required value",
				`Error: Value { Cockroachdb cockroachdbs.charts.operatorhub.io v1alpha1}: owned CRD cockroachdbs.charts.operatorhub.io/v1alpha1 not found in bundle "cockroachdb.v5.0.4"`}},
		{"object namespace", editYAML(t, b, svc, func(s map[string]any) { get(s, "metadata")["namespace"] = "ns" }),
			[]string{"error validating object metadata: metadata.namespace: Forbidden: not allowed on this type. " + svc}},
		{"object name", editYAML(t, b, svc, func(s map[string]any) { delete(get(s, "metadata"), "name") }),
			[]string{"error validating object metadata: metadata.name: Required value: name or generateName is required. " + svc}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Validate(tc.fsys)
			assert.Empty(t, r.Format)
			assert.Equal(t, tc.want, messages(r.Content))
			assert.Equal(t, tc.want != nil, r.Failed())
		})
	}
}

func TestValidateHelm(t *testing.T) {
	b := fstest.MapFS{
		"manifests/Chart.yaml": {Data: []byte("name: x\n")},
		annFile:                {Data: []byte(annotations(map[string]string{annotation.MediaType: "helm"}))},
	}
	r := Validate(b)
	assert.NoError(t, r.Err())
	assert.Equal(t, bundle.MediaTypeHelm, r.MediaType)
}

func TestValidateOperatorHub(t *testing.T) {
	b := loadBundle(t, cockroach)
	broken := editYAML(t, b, cockroachCSV, func(c map[string]any) {
		s := get(c, "spec")
		s["provider"] = map[string]any{"url": "x"}
		s["maintainers"] = []any{map[string]any{"name": "m", "email": "not-mail"}}
		s["links"] = []any{map[string]any{"name": "l", "url": "not a url"}}
		s["icon"] = []any{map[string]any{"base64data": "AA==", "mediatype": "image/bmp"}}
		ann := get(c, "metadata", "annotations")
		ann["capabilities"] = "Basic"
		ann["categories"] = "Database,Toys"
	})
	prefix := "Error: Value : (cockroachdb.v5.0.4) "
	want := []string{
		prefix + "csv.Spec.Provider.Name not specified",
		prefix + `csv.Spec.Maintainers email not-mail is invalid: mail: missing '@' or angle-addr`,
		prefix + `csv.Spec.Links url not a url is invalid: parse "not a url": invalid URI for request`,
		prefix + `csv.Metadata.Annotations.Capabilities "Basic" is not a valid capabilities level`,
		prefix + `csv.Metadata.Annotations["categories"] value "Toys" is not in the set of standard categories`,
		prefix + "csv.Spec.Icon image/bmp does not have a valid mediatype",
	}
	assert.NoError(t, Validate(broken).Err(), "optional validators run only when asked")
	assert.Equal(t, want, messages(Validate(broken, WithOptional(OperatorHub)).Content))

	kiali := loadBundle(t, "../../fixtures/bundles/community/kiali/1.3.1")
	for p, f := range kiali {
		if path.Ext(p) == ".yaml" && path.Dir(p) == "manifests" && yaml.Unmarshal(f.Data, &struct{}{}) == nil {
			var head struct{ Kind string }
			require.NoError(t, yaml.Unmarshal(f.Data, &head))
			if head.Kind == kindCSV {
				kiali = editYAML(t, kiali, p, func(c map[string]any) { get(c, "spec")["minKubeVersion"] = "1.22.0" })
			}
		}
	}
	got := messages(Validate(kiali, WithOptional(OperatorHub)).Content)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "this bundle is using APIs which were deprecated and removed in v1.22. Migrate the API(s) for CRD: ")
}

func TestValidateBundleObjects(t *testing.T) {
	b := loadBundle(t, cockroach)
	for _, tc := range []struct {
		name, object string
		want         []string
	}{
		{"pdb max 0", "kind: PodDisruptionBudget\nmetadata: {name: p}\nspec: {maxUnavailable: 0}\n", []string{"Error: Value PodDisruptionBudget p: maxUnavailable field cannot be set to 0 or 0%"}},
		{"pdb max 0%", "kind: PodDisruptionBudget\nmetadata: {name: p}\nspec: {maxUnavailable: 0%}\n", []string{"Error: Value PodDisruptionBudget p: maxUnavailable field cannot be set to 0 or 0%"}},
		{"pdb max 50%", "kind: PodDisruptionBudget\nmetadata: {name: p}\nspec: {maxUnavailable: 50%}\n", nil},
		{"pdb min 100%", "kind: PodDisruptionBudget\nmetadata: {name: p}\nspec: {minAvailable: 100%}\n", []string{"Error: Value PodDisruptionBudget p: minAvailable field cannot be set to 100%"}},
		{"priority class", "kind: PriorityClass\nmetadata: {name: pc}\nvalue: 1\nglobalDefault: true\n", []string{"Error: Value PriorityClass pc: globalDefault field cannot be set to true"}},
		{"scc", "kind: ClusterRole\nmetadata: {name: r}\nrules: [{apiGroups: [security.openshift.io], resources: [securitycontextconstraints], verbs: [use, update], resourceNames: [privileged]}]\n",
			[]string{"Error: Value ClusterRole r: RBAC includes permission to modify default securitycontextconstraints, which could impact cluster stability"}},
		{"scc own", "kind: ClusterRole\nmetadata: {name: r}\nrules: [{apiGroups: [security.openshift.io], resources: [securitycontextconstraints], verbs: [update], resourceNames: [mine]}]\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := edit(b, map[string]string{"manifests/zz.yaml": "apiVersion: v1\n" + tc.object})
			assert.NoError(t, Validate(fsys).Err())
			assert.Equal(t, tc.want, messages(Validate(fsys, WithOptional(BundleObjects)).Content))
		})
	}
}

package manifest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const testCSV = `{
  "apiVersion": "operators.coreos.com/v1alpha1", "kind": "ClusterServiceVersion",
  "metadata": {"name": "foo.v0.3.1", "annotations": {"olm.skipRange": "<0.3.1", "count": 3}, "labels": {"l": "v"}},
  "Spec": {
    "version": "0.3.1", "replaces": "foo.v0.3.0", "skips": ["foo.v0.2.0"],
    "displayName": "Foo", "description": "the foo operator", "icon": [{"base64data": "QQ==", "mediatype": "image/png"}],
    "keywords": ["a"], "maturity": "alpha", "minKubeVersion": "1.20.0",
    "nativeAPIs": [{"group": "", "version": "v1", "kind": "Pod"}],
    "provider": {"name": "Example"},
    "installModes": [{"type": "OwnNamespace", "supported": true}],
    "relatedImages": [{"name": "op", "image": "example.com/foo:v0.3.1"}],
    "customresourcedefinitions": {
      "owned": [{"name": "foos.test.foo", "version": "v1", "kind": "Foo", "specDescriptors": [{"path": "size", "value": 1}]}],
      "required": [{"name": "bars.test.bar", "version": "v1", "kind": "Bar"}, {"name": "bars.test.bar", "version": "v1", "kind": "Bar"}]
    },
    "apiservicedefinitions": {"owned": [{"name": "things", "group": "t.io", "version": "v1", "kind": "Thing"}]},
    "install": {"strategy": "deployment", "spec": {"deployments": [
      {"name": "d", "spec": {"template": {"spec": {
        "containers": [{"name": "operator", "image": "example.com/foo:v0.3.1"}, {"name": "sidecar", "image": "example.com/side:v1"}],
        "initContainers": [{"name": "init", "image": "example.com/init:v1"}]}}}}
    ]}}
  }
}`

func TestParseCSV(t *testing.T) {
	c, err := ParseCSV([]byte(testCSV))
	require.NoError(t, err)
	assert.Equal(t, "foo.v0.3.1", c.Name())
	assert.Equal(t, "operators.coreos.com/v1alpha1", c.APIVersion())
	assert.Equal(t, "<0.3.1", c.Annotation("olm.skipRange"))
	assert.Equal(t, "", c.Annotation("count"), "not a string")
	_, err = c.Annotations()
	assert.ErrorContains(t, err, "metadata.annotations")

	v, err := c.Version()
	require.NoError(t, err)
	assert.Equal(t, "0.3.1", v)
	r, err := c.Replaces()
	require.NoError(t, err)
	assert.Equal(t, "foo.v0.3.0", r)
	skips, err := c.Skips()
	require.NoError(t, err)
	assert.Equal(t, []string{"foo.v0.2.0"}, skips)

	cts, err := c.Containers()
	require.NoError(t, err)
	assert.Equal(t, []Container{
		{Name: "init", Image: "example.com/init:v1", Init: true},
		{Name: "operator", Image: "example.com/foo:v0.3.1"},
		{Name: "sidecar", Image: "example.com/side:v1"},
	}, cts)
	ri, err := c.RelatedImages()
	require.NoError(t, err)
	assert.Equal(t, []RelatedImage{{Name: "op", Image: "example.com/foo:v0.3.1"}}, ri)

	req, err := c.RequiredAPIs()
	require.NoError(t, err)
	assert.Equal(t, []API{{GVK: GVK{Group: "test.bar", Version: "v1", Kind: "Bar"}, Plural: "bars"}}, req)
	prov, err := ProvidedAPIs(c, nil)
	require.NoError(t, err)
	assert.Equal(t, []API{
		{GVK: GVK{Group: "test.foo", Version: "v1", Kind: "Foo"}, Plural: "foos"},
		{GVK: GVK{Group: "t.io", Version: "v1", Kind: "Thing"}, Plural: "things"},
	}, prov)
	crd := []byte(`{"kind":"CustomResourceDefinition","spec":{"group":"test.foo","names":{"kind":"Foo","plural":"foos"},"versions":[{"name":"v2"},{"name":"v1"}]}}`)
	prov, err = ProvidedAPIs(c, [][]byte{crd})
	require.NoError(t, err)
	assert.Equal(t, []API{
		{GVK: GVK{Group: "test.foo", Version: "v2", Kind: "Foo"}, Plural: "foos"},
		{GVK: GVK{Group: "test.foo", Version: "v1", Kind: "Foo"}, Plural: "foos"},
		{GVK: GVK{Group: "t.io", Version: "v1", Kind: "Thing"}, Plural: "things"},
	}, prov, "CRD manifests replace the owned CRDs")
}

func TestParseCSVErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, err string }{
		{"not JSON", `{"kind":`, "not valid JSON"},
		{"not an object", `[1]`, "not a JSON object"},
		{"spec not an object", `{"spec":[1]}`, "spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseCSV([]byte(tc.data))
			require.ErrorContains(t, err, tc.err)
		})
	}
	c, err := ParseCSV([]byte(`{"spec":{"relatedImages":"nope","version":1}}`))
	require.NoError(t, err, "fields decode when asked for")
	_, err = c.RelatedImages()
	assert.ErrorContains(t, err, "spec.relatedImages")
	_, err = c.Version()
	assert.ErrorContains(t, err, "spec.version")
}

func TestMetadata(t *testing.T) {
	c, err := ParseCSV([]byte(`{"metadata":{"annotations":{"b":"2","a":"1<"}},"spec":{"displayName":"Foo","provider":{"name":"E"},"nativeAPIs":[{"kind":"Pod","version":"v1","group":""}],"install":{"x":1}}}`))
	require.NoError(t, err)
	m, err := c.Metadata()
	require.NoError(t, err)
	out, err := json.Marshal(m)
	require.NoError(t, err)
	// Keys sorted, empty structs kept, nativeAPIs in Kubernetes order.
	assert.Equal(t, `{"annotations":{"a":"1\u003c","b":"2"},"apiServiceDefinitions":{},"crdDescriptions":{},"displayName":"Foo","nativeAPIs":[{"group":"","version":"v1","kind":"Pod"}],"provider":{"name":"E"}}`, string(out))

	csv, err := SyntheticCSV{Name: "foo.v1", Version: "1.0.0", Metadata: m, PackageDescription: "pkg",
		Icon: IconFromData([]byte("A"), "image/png"), RelatedImages: []RelatedImage{{Name: "x", Image: "y"}}}.JSON()
	require.NoError(t, err)
	assert.Equal(t, `{"kind":"ClusterServiceVersion","apiVersion":"operators.coreos.com/v1alpha1","metadata":{"name":"foo.v1","creationTimestamp":null,"annotations":{"a":"1\u003c","b":"2"}},"spec":{"install":{"strategy":"deployment","spec":{"deployments":null}},"version":"1.0.0","customresourcedefinitions":{},"apiservicedefinitions":{},"nativeAPIs":[{"group":"","version":"v1","kind":"Pod"}],"displayName":"Foo","description":"pkg","provider":{"name":"E"},"icon":[{"base64data":"QQ==","mediatype":"image/png"}],"cleanup":{"enabled":false},"relatedImages":[{"name":"x","image":"y"}]},"status":{"cleanup":{}}}`, string(csv))
}

// TestInstallModesAndWebhooks: the two spec fields OLM v1's install
// checks read, keys matched case-insensitively.
func TestInstallModesAndWebhooks(t *testing.T) {
	c, err := ParseCSV([]byte(`{"spec":{"installModes":[{"type":"AllNamespaces","supported":true}],"WebhookDefinitions":[{"type":"ConversionWebhook","generateName":"c.example.com","deploymentName":"d","conversionCRDs":["a.example.com"]}]}}`))
	require.NoError(t, err)
	modes, err := c.InstallModes()
	require.NoError(t, err)
	assert.Equal(t, []InstallMode{{Type: "AllNamespaces", Supported: true}}, modes)
	hooks, err := c.Webhooks()
	require.NoError(t, err)
	assert.Equal(t, []WebhookDescription{{Type: "ConversionWebhook", GenerateName: "c.example.com", DeploymentName: "d", ConversionCRDs: []string{"a.example.com"}}}, hooks)
	_, err = (&CSV{spec: [numSpecFields][]byte{specWebhooks: []byte(`{}`)}}).Webhooks()
	assert.ErrorContains(t, err, "spec.webhookdefinitions")
}

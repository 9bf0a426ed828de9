package unpack

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const (
	testCSV = "apiVersion: operators.coreos.com/v1alpha1\nkind: ClusterServiceVersion\nmetadata:\n  name: foo.v1.0.0\n"
	testCRD = "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: foos.example.com\n"
	testSvc = "apiVersion: v1\nkind: Service\nmetadata:\n  name: foo-metrics\n"
)

func configMap(data map[string]string, binary map[string][]byte, ann map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", Annotations: ann},
		Data:       data,
		BinaryData: binary,
	}
}

func TestLoad(t *testing.T) {
	gz, err := gzipBase64([]byte(testCSV))
	require.NoError(t, err)
	m, err := Load(configMap(
		map[string]string{
			"b.crd.yaml":        testCRD,
			"a.csv.yaml":        testCSV,
			"extra.yaml":        testSvc + "---\n# only a comment\n---\n" + testSvc,
			"foo.package.yaml":  "packageName: foo\nchannels:\n- name: stable\n  currentCSV: foo.v1.0.0\ndefaultChannel: stable\n",
			"dependencies.yaml": "dependencies:\n- type: olm.gvk\n  value: {group: g, kind: K, version: v1}\n",
		}, nil,
		map[string]string{AnnotationSourceImage: "example/foo:v1", "operators.operatorframework.io.bundle.package.v1": "foo"}))
	require.NoError(t, err)
	b := m.Bundle
	assert.Equal(t, "foo.v1.0.0", b.Name)
	if assert.NotNil(t, b.CSV, "CSV") {
		assert.Equal(t, "a.csv.yaml", b.CSV.Key, "CSV key")
	}
	if assert.Len(t, b.CRDs, 1, "CRDs") {
		assert.Equal(t, "foos.example.com", b.CRDs[0].Name, "CRD name")
	}
	assert.Len(t, b.Others, 2, "others")
	assert.Len(t, b.Objects, 4, "objects")
	assert.Equal(t, "example/foo:v1", b.Image, "image")
	assert.Equal(t, map[string]string{"operators.operatorframework.io.bundle.package.v1": "foo"}, b.Annotations, "annotations")
	if assert.NotNil(t, m.PackageManifest, "package manifest") {
		assert.Equal(t, "foo", m.PackageManifest.PackageName, "package manifest")
		if assert.NotEmpty(t, m.PackageManifest.Channels, "package manifest channels") {
			assert.Equal(t, "foo.v1.0.0", m.PackageManifest.Channels[0].CurrentCSV, "package manifest channel")
		}
	}
	for _, f := range b.Files {
		if f.Key == "dependencies.yaml" {
			assert.Equal(t, "metadata/dependencies.yaml", f.Path, "dependencies.yaml path")
		}
	}

	m, err = Load(configMap(map[string]string{"ignored-by-nobody.yaml": testSvc}, map[string][]byte{"csv.yaml": gz},
		map[string]string{AnnotationContentEncoding: EncodingGzipBase64}))
	require.NoError(t, err, "gzip")
	assert.Equal(t, "foo.v1.0.0", m.Bundle.Name, "gzip: name")
	assert.Len(t, m.Bundle.Objects, 2, "gzip: objects")
}

func TestLoadErrorsNameTheKey(t *testing.T) {
	for _, tc := range []struct {
		name    string
		cm      *corev1.ConfigMap
		wantErr string
	}{
		{"no kind", configMap(map[string]string{"csv.yaml": testCSV, "bad.yaml": "metadata:\n  name: x\n"}, nil, nil), `key "bad.yaml": not a Kubernetes object`},
		{"not yaml", configMap(map[string]string{"csv.yaml": testCSV, "bad.yaml": "a: [\n"}, nil, nil), `key "bad.yaml"`},
		{"second document bad", configMap(map[string]string{"csv.yaml": testCSV, "two.yaml": testSvc + "---\nfoo: bar\n"}, nil, nil), `key "two.yaml": document 2`},
		{"two CSVs", configMap(map[string]string{"a.yaml": testCSV, "b.yaml": testCSV}, nil, nil), `key "b.yaml": second ClusterServiceVersion`},
		{"no CSV", configMap(map[string]string{"svc.yaml": testSvc}, nil, nil), "no ClusterServiceVersion"},
		{"bad base64", configMap(nil, map[string][]byte{"csv.yaml": []byte("%%%")}, map[string]string{AnnotationContentEncoding: EncodingGzipBase64}), `key "csv.yaml": not base64`},
		{"not gzip", configMap(nil, map[string][]byte{"csv.yaml": []byte("aGVsbG8=")}, map[string]string{AnnotationContentEncoding: EncodingGzipBase64}), `key "csv.yaml": not gzip`},
		{"unknown encoding", configMap(map[string]string{"csv.yaml": testCSV}, nil, map[string]string{AnnotationContentEncoding: "zstd"}), `unknown olm.contentEncoding "zstd"`},
		{"path escapes", configMap(map[string]string{"csv.yaml": testCSV}, nil, map[string]string{AnnotationPaths: `{"csv.yaml":"../csv.yaml"}`}), "not manifests/<name>"},
		{"empty", configMap(nil, nil, nil), "no ClusterServiceVersion"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.cm)
			require.ErrorContains(t, err, tc.wantErr, "Load")
			assert.ErrorContains(t, err, "configmap ns/cm", "error does not name the configmap")
		})
	}
}

// gzipBase64 encodes content as opm's gzip+base64 entries.
func gzipBase64(content []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(content); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return []byte(base64.StdEncoding.EncodeToString(buf.Bytes())), nil
}

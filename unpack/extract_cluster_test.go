package unpack

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// fixtureBundles returns every bundle directory (manifests/ and
// metadata/annotations.yaml) under fixtures/bundles.
func fixtureBundles(t testing.TB) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir("../fixtures/bundles", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "manifests" {
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), "metadata", AnnotationsFile)); err == nil {
				dirs = append(dirs, filepath.Dir(p))
			}
			return filepath.SkipDir
		}
		return nil
	})
	require.NoError(t, err, "walk fixtures/bundles")
	require.GreaterOrEqual(t, len(dirs), 100, "bundle directories under fixtures/bundles, want the 109 copied there")
	return dirs
}

// diskBundle is what a bundle directory should come back as.
type diskBundle struct {
	files       map[string]string // bundle path -> content, annotations.yaml excluded
	annotations map[string]string
	objects     []string // every document of every manifest, as JSON
}

func readDiskBundle(t testing.TB, dir string) diskBundle {
	t.Helper()
	b := diskBundle{files: map[string]string{}}
	for _, sub := range []string{"manifests", "metadata"} {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		require.NoError(t, err)
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(dir, sub, e.Name()))
			require.NoError(t, err)
			if sub == "metadata" && e.Name() == AnnotationsFile {
				var doc struct{ Annotations map[string]string }
				require.NoError(t, yaml.Unmarshal(data, &doc), "%s/%s/%s", dir, sub, e.Name())
				b.annotations = doc.Annotations
				continue
			}
			b.files[sub+"/"+e.Name()] = string(data)
		}
	}
	return b
}

// TestExtractLoadRoundTrip writes every fixture bundle into a ConfigMap on
// the API server, plain and gzipped, with the extra metadata, reads it
// back and loads it: the same files, annotations and objects come back. A plain bundle over 1 MiB must
// fail before writing, and then round-trips gzipped.
func TestExtractLoadRoundTrip(t *testing.T) {
	c := kubetest.Get(t)
	client := c.Admin(t)
	ns := c.Namespace(t)
	for i, dir := range fixtureBundles(t) {
		rel := strings.TrimPrefix(dir, "../fixtures/bundles/")
		want := readDiskBundle(t, dir)
		for _, gzipped := range []bool{false, true} {
			name := fmt.Sprintf("b%d-gzip-%v", i, gzipped)
			t.Run(rel+"/"+name, func(t *testing.T) {
				t.Parallel()
				roundTrip(t, client, ns, name, dir, gzipped, want)
			})
		}
	}
}

func roundTrip(t testing.TB, client kubernetes.Interface, ns, name, dir string, gzipped bool, want diskBundle) {
	t.Helper()
	ctx := context.Background()
	before := createConfigMap(t, client, ns, name)
	image := "example/" + filepath.Base(dir) + ":v1"
	_, err := jobtool.Extract(ctx, adminWriter(t), ns, name, jobtool.WithBundleDir(dir), jobtool.WithGzip(gzipped),
		jobtool.WithSourceImage(image), jobtool.WithExtraMetadata(true))
	if err != nil && !gzipped && strings.Contains(err.Error(), "over the limit") {
		assertUnchanged(t, client, ns, name, before.ResourceVersion)
		t.Skipf("plain bundle over 1 MiB, refused before writing: %v", err)
	}
	require.NoError(t, err, "extract")
	cm, err := client.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	require.NoError(t, err, "get configmap %s/%s", ns, name)
	assert.Equal(t, gzipped, cm.Annotations[AnnotationContentEncoding] == EncodingGzipBase64, "gzip encoding annotation: annotations %v", cm.Annotations)
	assert.Equal(t, image, cm.Annotations[AnnotationSourceImage], "source image annotation")
	if gzipped {
		assert.Empty(t, cm.Data, "gzipped ConfigMap has data entries")
	}
	m, err := Load(cm)
	require.NoError(t, err, "load")
	got := diskBundle{files: map[string]string{}, annotations: m.Bundle.Annotations}
	for _, f := range m.Bundle.Files {
		got.files[f.Path] = string(f.Content)
	}
	for _, o := range m.Bundle.Objects {
		got.objects = append(got.objects, string(o.JSON))
	}
	want.objects = manifestObjects(t, want.files)
	assert.Empty(t, cmp.Diff(want, got, cmp.AllowUnexported(diskBundle{})), "round trip (-disk +configmap)")
	assert.NotNil(t, m.Bundle.CSV, "CSV")
	assert.Equal(t, image, m.Bundle.Image, "bundle image")
}

// manifestObjects returns the documents of the manifests in path order, as
// JSON, independently of Load: the reference the round trip compares with.
func manifestObjects(t testing.TB, files map[string]string) []string {
	t.Helper()
	var paths []string
	for p := range files {
		if strings.HasPrefix(p, "manifests/") {
			paths = append(paths, p)
		}
	}
	var out []string
	sort.Strings(paths)
	for _, p := range paths {
		for _, doc := range splitYAMLLines(files[p]) {
			js, err := yaml.YAMLToJSON([]byte(doc))
			require.NoError(t, err, p)
			if string(js) != "null" {
				out = append(out, string(js))
			}
		}
	}
	return out
}

func assertUnchanged(t testing.TB, client kubernetes.Interface, ns, name, resourceVersion string) {
	t.Helper()
	cm, err := client.CoreV1().ConfigMaps(ns).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err, "get configmap %s/%s", ns, name)
	assert.Equal(t, resourceVersion, cm.ResourceVersion, "ConfigMap changed: resourceVersion")
	assert.Empty(t, cm.Data, "ConfigMap changed: data")
	assert.Empty(t, cm.BinaryData, "ConfigMap changed: binaryData")
	assert.Empty(t, cm.Annotations, "ConfigMap changed: annotations")
}

// TestExtractOverLimit: a bundle over the ConfigMap limit (incompressible
// content, so gzip does not save it) fails before anything is written and
// names the biggest files.
func TestExtractOverLimit(t *testing.T) {
	c := kubetest.Get(t)
	client := c.Admin(t)
	ns := c.Namespace(t)
	dir := t.TempDir()
	noise := func(n int) string {
		b := make([]byte, n)
		rand.Read(b)
		return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nbinaryData:\n  x: %x\n", b)
	}
	writeFiles(t, dir, map[string]string{
		"metadata/annotations.yaml": "annotations:\n  operators.operatorframework.io.bundle.package.v1: big\n",
		"manifests/csv.yaml":        testCSV,
		"manifests/huge.yaml":       noise(400 << 10),
		"manifests/large.yaml":      noise(300 << 10),
		"manifests/medium.yaml":     noise(100 << 10),
		"manifests/small.yaml":      noise(10 << 10),
	})
	for _, gzipped := range []bool{false, true} {
		name := fmt.Sprintf("big-%v", gzipped)
		before := createConfigMap(t, client, ns, name)
		_, err := jobtool.Extract(context.Background(), adminWriter(t), ns, name, jobtool.WithBundleDir(dir), jobtool.WithGzip(gzipped))
		require.Error(t, err, "gzip %v: extract of a >1 MiB bundle succeeded", gzipped)
		msg := err.Error()
		for _, want := range []string{"over the limit of 1048576 bytes", "biggest files: manifests/huge.yaml (", "manifests/large.yaml (", "manifests/medium.yaml ("} {
			assert.Contains(t, msg, want, "gzip %v: error", gzipped)
		}
		assert.NotContains(t, msg, "small.yaml", "error names more than the three biggest files")
		assertUnchanged(t, client, ns, name, before.ResourceVersion)
	}
}

// TestExtractMissingConfigMap: the ConfigMap must exist (Launch creates it).
func TestExtractMissingConfigMap(t *testing.T) {
	c := kubetest.Get(t)
	dir := "../fixtures/bundles/small-fbb/foo-bundle-v0.1.0"
	_, err := jobtool.Extract(context.Background(), adminWriter(t), c.Namespace(t), "absent", jobtool.WithBundleDir(dir))
	require.True(t, jobtool.IsStatus(err, http.StatusNotFound), "extract into a missing ConfigMap: %v, want NotFound", err)
}

// TestExtractKeysAndBinary: file names outside the key alphabet, names
// sanitizing to one key, the same name in manifests/ and metadata/, and
// non-UTF-8 content pass the API server's validation and come back byte for
// byte under distinct keys.
func TestExtractKeysAndBinary(t *testing.T) {
	c := kubetest.Get(t)
	client := c.Admin(t)
	ns := c.Namespace(t)
	dir := t.TempDir()
	binary := string([]byte{0xff, 0xfe, 0x00, 0x01})
	deps := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: deps\n"
	writeFiles(t, dir, map[string]string{
		"metadata/annotations.yaml":   "annotations:\n  operators.operatorframework.io.bundle.package.v1: keys\n",
		"metadata/dependencies.yaml":  "dependencies: []\n",
		"manifests/csv+v1.yaml":       testCSV,
		"manifests/svc:a.yaml":        testSvc,
		"manifests/svc+a.yaml":        testCRD,
		"manifests/dependencies.yaml": deps,
		"manifests/icon.bin":          binary,
	})
	createConfigMap(t, client, ns, "keys")
	_, err := jobtool.Extract(context.Background(), adminWriter(t), ns, "keys", jobtool.WithBundleDir(dir), jobtool.WithExtraMetadata(true))
	require.NoError(t, err, "extract")
	cm, err := client.CoreV1().ConfigMaps(ns).Get(context.Background(), "keys", metav1.GetOptions{})
	require.NoError(t, err, "get configmap")
	wantData := map[string]string{
		"csv-v1.yaml":         testCSV,
		"dependencies.yaml":   deps,
		"svc-a.yaml":          testCRD, // "svc+a.yaml" sorts before "svc:a.yaml"
		"svc-a-2.yaml":        testSvc,
		"dependencies-2.yaml": "dependencies: []\n",
	}
	assert.Empty(t, cmp.Diff(wantData, cm.Data), "data (-want +got)")
	assert.Equal(t, map[string][]byte{"icon.bin": []byte(binary)}, cm.BinaryData, "binaryData")
	wantPaths := `{"csv-v1.yaml":"manifests/csv+v1.yaml","dependencies-2.yaml":"metadata/dependencies.yaml","dependencies.yaml":"manifests/dependencies.yaml","icon.bin":"manifests/icon.bin","svc-a-2.yaml":"manifests/svc:a.yaml","svc-a.yaml":"manifests/svc+a.yaml"}`
	assert.Equal(t, wantPaths, cm.Annotations[AnnotationPaths], "paths annotation")
	// The binary file is no Kubernetes object: Load names it.
	_, err = Load(cm)
	assert.ErrorContains(t, err, `key "icon.bin"`, "Load error, want it to name icon.bin")
}

// splitYAMLLines splits a YAML stream at "---" lines.
func splitYAMLLines(s string) []string {
	var docs []string
	var cur bytes.Buffer
	for _, line := range strings.SplitAfter(s, "\n") {
		if strings.TrimRight(line, " \r\n") == "---" {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return append(docs, cur.String())
}

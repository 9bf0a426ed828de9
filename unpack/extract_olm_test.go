package unpack

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// olmAnnotationKeys are the annotations OLM's unpacker (cpb, then opm
// alpha bundle extract -z with CONTAINER_IMAGE) leaves on the ConfigMap.
var olmAnnotationKeys = []string{
	AnnotationContentEncoding, AnnotationSourceImage,
	"operators.operatorframework.io.bundle.channel.default.v1",
	"operators.operatorframework.io.bundle.channels.v1",
	"operators.operatorframework.io.bundle.manifests.v1",
	"operators.operatorframework.io.bundle.mediatype.v1",
	"operators.operatorframework.io.bundle.metadata.v1",
	"operators.operatorframework.io.bundle.package.v1",
}

// TestExtractDefaultIsOLMs: what the Job's pull and extract containers
// write by default is what OLM's write, key for key and annotation for
// annotation, for every fixture bundle: the manifests only (no
// dependencies.yaml or other metadata file), opm's six bundle annotations
// (empty when the bundle lacks one), the source image and the encoding, no
// paths annotation. That ConfigMap loads to the same objects as one with
// the extra metadata.
func TestExtractDefaultIsOLMs(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	ctx := context.Background()
	for i, dir := range fixtureBundles(t) {
		copied := t.TempDir()
		require.NoError(t, jobtool.CopyBundle(dir, copied, false), dir)
		want := readDiskBundle(t, dir)
		var wantKeys []string
		for p := range want.files {
			if strings.HasPrefix(p, "manifests/") {
				wantKeys = append(wantKeys, strings.TrimPrefix(p, "manifests/"))
			}
		}
		sort.Strings(wantKeys)
		loaded := map[bool][]string{}
		for _, extra := range []bool{false, true} {
			name := fmt.Sprintf("olm-%d-%v", i, extra)
			createConfigMap(t, c.Admin(t), ns, name)
			src := copied
			if extra {
				src = dir
			}
			_, err := jobtool.Extract(ctx, adminWriter(t), ns, name, jobtool.WithBundleDir(src), jobtool.WithGzip(true),
				jobtool.WithSourceImage("example/b:v1"), jobtool.WithExtraMetadata(extra))
			require.NoError(t, err, dir)
			cm, err := c.Admin(t).CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
			require.NoError(t, err)
			m, err := Load(cm)
			require.NoError(t, err, "load %s (extra %v)", dir, extra)
			for _, o := range m.Bundle.Objects {
				loaded[extra] = append(loaded[extra], string(o.JSON))
			}
			if extra {
				continue
			}
			var keys, annotations []string
			for k := range cm.BinaryData {
				keys = append(keys, k)
			}
			for k := range cm.Annotations {
				annotations = append(annotations, k)
			}
			sort.Strings(keys)
			sort.Strings(annotations)
			assert.Equal(t, wantKeys, keys, "%s: keys", dir)
			assert.Equal(t, olmAnnotationKeys, annotations, "%s: annotations", dir)
		}
		assert.Empty(t, cmp.Diff(loaded[true], loaded[false]), "%s: objects (-extra +default)", dir)
	}
}

// TestExtractAnnotationLimit: extra metadata is checked against the API
// server's 256 KiB annotation limit before anything is written, with an
// error naming the biggest annotation; by default the bundle's other
// annotations are not stored and the same bundle extracts.
func TestExtractAnnotationLimit(t *testing.T) {
	c := kubetest.Get(t)
	client := c.Admin(t)
	ns := c.Namespace(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"metadata/annotations.yaml": "annotations:\n  operators.operatorframework.io.bundle.package.v1: big\n  example.com/huge: " + strings.Repeat("x", 300<<10) + "\n",
		"manifests/csv.yaml":        testCSV,
	})
	before := createConfigMap(t, client, ns, "big")
	_, err := jobtool.Extract(context.Background(), adminWriter(t), ns, "big", jobtool.WithBundleDir(dir), jobtool.WithExtraMetadata(true))
	require.ErrorContains(t, err, "over the limit of 262144 bytes; biggest: example.com/huge")
	assertUnchanged(t, client, ns, "big", before.ResourceVersion)
	_, err = jobtool.Extract(context.Background(), adminWriter(t), ns, "big", jobtool.WithBundleDir(dir))
	require.NoError(t, err)
}

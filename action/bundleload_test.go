package action_test

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/unpack"
)

// entries are the files of dir as ConfigMap entries (kubectl create
// configmap --from-file=dir).
func entries(t *testing.T, dir string) map[string]string {
	t.Helper()
	data := map[string]string{}
	list, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range list {
		content, err := os.ReadFile(filepath.Join(dir, e.Name()))
		require.NoError(t, err)
		data[e.Name()] = string(content)
	}
	return data
}

// TestBundleLoad: a ConfigMap with the bundle's metadata loads as the
// blob of its image; one in the package-manifest layout takes the
// package and channels from the PackageManifest and says so; one with
// manifests only has no blob.
func TestBundleLoad(t *testing.T) {
	dir := filepath.Join(bundles, "small-fbb/foo-bundle-v0.1.0")
	manifests := entries(t, filepath.Join(dir, "manifests"))
	withMetadata := maps.Clone(manifests)
	maps.Copy(withMetadata, entries(t, filepath.Join(dir, "metadata")))
	withPM := maps.Clone(manifests)
	withPM["foo.package.yaml"] = "packageName: foo\nchannels:\n- name: beta\n  currentCSV: foo.v0.1.0\n- name: stable\n  currentCSV: foo.v0.2.0\ndefaultChannel: stable\n"
	for _, tc := range []struct {
		name    string
		data    map[string]string
		note    string
		wantErr error
	}{
		{name: "metadata", data: withMetadata},
		{name: "package manifest", data: withPM,
			note: `note: ns/cm has no bundle annotations: package foo, channels "beta" and default channel "stable" taken from its PackageManifest`},
		{name: "manifests only", data: manifests, wantErr: action.ErrNoBundleMetadata},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "cm",
				Annotations: map[string]string{unpack.AnnotationSourceImage: "example/foo-bundle:v0.1.0"}}, Data: tc.data}
			var r recorder
			res, err := action.BundleLoad{Env: r.env(), ConfigMap: cm}.Run(context.Background())
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, "foo", res.Bundle.Package)
			assert.Equal(t, "foo.v0.1.0", res.Bundle.Name)
			assert.Equal(t, "example/foo-bundle:v0.1.0", res.Bundle.Image)
			if tc.note != "" {
				assert.Equal(t, []string{tc.note}, r.lines)
			}
		})
	}
}

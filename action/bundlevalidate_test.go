package action_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/bundle/bundlecheck"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestBundleValidate: a bundle image is validated and, with Out, copied
// whole; one without its metadata fails the format stage (and is copied
// with SkipValidation); a local path and an image without the bundle
// label are refused before anything is validated.
func TestBundleValidate(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	dir := filepath.Join(bundles, "community/cockroachdb/5.0.4")
	reg := imagetest.New(t)
	labels := map[string]string{annotation.Package: "cockroachdb", annotation.Channels: "stable"}
	manifests := imagetest.DirLayer(t, filepath.Join(dir, "manifests"), "manifests")
	good := reg.Push(t, "bundles/foo:good", imagetest.Image(t, labels, nil, manifests,
		imagetest.DirLayer(t, filepath.Join(dir, "metadata"), "metadata")))
	noMetadata := reg.Push(t, "bundles/foo:no-metadata", imagetest.Image(t, labels, nil, manifests))
	notBundle := reg.Push(t, "catalogs/c:v1", imagetest.Image(t, map[string]string{image.LabelConfigs: "/configs"}, nil,
		imagetest.DirLayer(t, smallCatalog, "configs")))
	all := []string{"manifests/charts.operatorhub.io_cockroachdbs.yaml", "manifests/cockroachdb.clusterserviceversion.yaml",
		"manifests/cockroachdb-metrics-reader_rbac.authorization.k8s.io_v1_clusterrole.yaml",
		"manifests/cockroachdb-controller-manager-metrics-service_v1_service.yaml"}
	env := action.Env{ImageOptions: func() ([]image.Option, error) { return []image.Option{image.WithUseHTTP(true)}, nil }}

	for _, tc := range []struct {
		name      string
		v         action.BundleValidate
		wantErr   string
		wantStage *bundlecheck.Stage
		wantFiles []string
	}{
		{name: "valid", v: action.BundleValidate{Image: good}},
		{name: "valid, unpacked", v: action.BundleValidate{Image: good, Out: "out"},
			wantFiles: append([]string{"metadata/annotations.yaml"}, all...)},
		{name: "no metadata", v: action.BundleValidate{Image: noMetadata, Out: "out"}, wantErr: "Unable to locate metadata directory",
			wantStage: new(bundlecheck.StageFormat)},
		{name: "no metadata, not validated", v: action.BundleValidate{Image: noMetadata, Out: "out", SkipValidation: true}, wantFiles: all},
		{name: "a local path", v: action.BundleValidate{Image: dir}, wantErr: dir + " is not an image reference"},
		{name: "not a bundle", v: action.BundleValidate{Image: notBundle}, wantErr: notBundle + " is not a bundle image (no " + annotation.Package + " label)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			v.Env = env
			if v.Out != "" {
				v.Out = filepath.Join(t.TempDir(), v.Out)
			}
			_, err := v.Run(context.Background())
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				var invalid *action.InvalidBundleError
				if assert.Equal(t, tc.wantStage != nil, errors.As(err, &invalid)) && tc.wantStage != nil {
					assert.Equal(t, *tc.wantStage, invalid.Stage)
				}
				if v.Out != "" {
					assert.NoDirExists(t, v.Out)
				}
				return
			}
			require.NoError(t, err)
			if v.Out != "" {
				var got []string
				for f := range files(t, v.Out) {
					got = append(got, filepath.ToSlash(f))
				}
				assert.ElementsMatch(t, tc.wantFiles, got)
			}
		})
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// renderMigrateBundleRepo is where the bundle of the recorded render
// --migrate of a bundle image was pushed, renderMigrateBundleGolden the
// recording (render_migrate_record_test.go).
const (
	renderMigrateBundleRepo   = "bundles/foo:v0.3.1"
	renderMigrateBundleGolden = "render-migrate-all-bundle-image.json"
)

// TestRenderMigrateImages: render --migrate and --migrate-level apply to
// image inputs as opm applies them: a sqlite index image renders as
// opm's recorded render of the same database file (fixtures/opmcli), a
// bundle image as opm's recorded render of that image.
func TestRenderMigrateImages(t *testing.T) {
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	t.Setenv(noDeprecationWarningEnv, "1")
	index := pushIndexImage(t, reg, "small-fbb")
	bundle := pushBundleImage(t, reg, renderMigrateBundleRepo, filepath.Join(fixtureBundles, foo031))
	for _, tc := range []struct {
		args   []string
		golden string
	}{
		{[]string{index, "--migrate-level", "bundle-object-to-csv-metadata"}, "render-migrate-smallfbb-db.stdout"},
		{[]string{"--output", "yaml", "--migrate", index}, "render-migrate-all-yaml-smallfbb-db.stdout"},
		{[]string{bundle, "--migrate"}, renderMigrateBundleGolden},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(opmOutputsDir, tc.golden))
			require.NoError(t, err)
			stdout, stderr, code := runCLI(t, append(append([]string{"render"}, tc.args...), flags...)...)
			require.Equal(t, 0, code, stderr)
			require.Equal(t, string(want), strings.ReplaceAll(stdout, reg.Host, registryPlaceholder))
		})
	}
}

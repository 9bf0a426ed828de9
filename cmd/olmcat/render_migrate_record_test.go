//go:build opmrecord

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestRecordOPMRenderMigrateImages records what the real opm v1.73.0
// (OPM, default ~/.cache/opm-v1.73.0/opm) renders with --migrate for a
// bundle image pushed to a loopback registry (its host:port replaced by
// REGISTRY), into fixtures/opmcli/render-migrate-all-bundle-image.json.
//
//	go test -tags opmrecord -run TestRecordOPMRenderMigrateImages ./cmd/olmcat
func TestRecordOPMRenderMigrateImages(t *testing.T) {
	opm := os.Getenv("OPM")
	if opm == "" {
		home, _ := os.UserHomeDir()
		opm = filepath.Join(home, ".cache/opm-v1.73.0/opm")
	}
	reg := imagetest.New(t)
	ref := pushBundleImage(t, reg, renderMigrateBundleRepo, filepath.Join(fixtureBundles, foo031))
	cmd := exec.Command(opm, "render", ref, "--use-http", "--migrate")
	cmd.Dir = t.TempDir()
	// opm's image library reads its pull policy from the home directory:
	// one that accepts the test's unsigned images.
	home := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".config", "containers"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".config", "containers", "policy.json"),
		[]byte(`{"default":[{"type":"insecureAcceptAnything"}]}`), 0o644))
	cmd.Env = append(os.Environ(), "HOME="+home)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), stderr.String())
	out := strings.ReplaceAll(stdout.String(), reg.Host, registryPlaceholder)
	require.NoError(t, os.WriteFile(filepath.Join(opmOutputsDir, renderMigrateBundleGolden), []byte(out), 0o644))
}

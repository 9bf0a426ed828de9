package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// TestConcurrentAddsAllLand runs 8 real olmcat add processes at once
// into one catalog, each adding one bundle of the same package, and
// checks that every bundle lands: the catalog is byte for byte the one
// the same adds give one after the other. Without the write lock each
// add read the catalog before the others wrote it, and the last commit
// won (issue 25, item 1: 8 of 8 runs lost bundles).
func TestConcurrentAddsAllLand(t *testing.T) {
	bin := buildBinary(t)
	for _, tc := range []struct {
		name    string
		base    []string // bundles added first, one at a time
		bundles []string // then added concurrently, one per process
	}{
		{
			name:    "existing package",
			base:    []string{"kiali/1.24.0"},
			bundles: []string{"kiali/1.25.0", "kiali/1.26.0", "kiali/1.27.0", "kiali/1.28.0", "kiali/1.29.0", "kiali/1.30.0", "kiali/1.31.0", "kiali/1.32.0"},
		},
		{
			name: "new package",
			bundles: []string{"istio-workspace-operator/0.0.6", "istio-workspace-operator/0.0.7", "istio-workspace-operator/0.0.8", "istio-workspace-operator/0.0.9",
				"istio-workspace-operator/0.0.10", "istio-workspace-operator/0.1.0", "istio-workspace-operator/0.2.0", "istio-workspace-operator/0.3.0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(noDeprecationWarningEnv, "")
			bundle := func(b string) string { return filepath.Join(fixtureBundles, "community", b) }
			newCatalog := func() string {
				cat := filepath.Join(t.TempDir(), "catalog")
				copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
				for _, b := range tc.base {
					stderr, code := runBinary(t, bin, "add", cat, bundle(b), "--mode", "semver")
					require.Equal(t, exitOK, code, stderr)
				}
				return cat
			}
			serial := newCatalog()
			start := time.Now()
			for _, b := range tc.bundles {
				stderr, code := runBinary(t, bin, "add", serial, bundle(b), "--mode", "semver")
				require.Equal(t, exitOK, code, stderr)
			}
			t.Logf("%d adds one after the other took %v", len(tc.bundles), time.Since(start))
			concurrent := newCatalog()
			start = time.Now()
			var wg sync.WaitGroup
			stderrs, codes := make([]bytes.Buffer, len(tc.bundles)), make([]int, len(tc.bundles))
			for i, b := range tc.bundles {
				cmd := exec.Command(bin, "add", concurrent, bundle(b), "--mode", "semver")
				cmd.Stderr = &stderrs[i]
				require.NoError(t, cmd.Start())
				wg.Add(1)
				go func() {
					defer wg.Done()
					_ = cmd.Wait()
					codes[i] = cmd.ProcessState.ExitCode()
				}()
			}
			wg.Wait()
			t.Logf("%d concurrent adds took %v", len(tc.bundles), time.Since(start))
			for i := range tc.bundles {
				require.Equal(t, exitOK, codes[i], stderrs[i].String())
			}
			require.Equal(t, bundleNames(t, serial), bundleNames(t, concurrent), "every bundle lands")
			assert.True(t, reflect.DeepEqual(snapshotTree(t, serial), snapshotTree(t, concurrent)), "the catalog is byte for byte the one of the adds one after the other")
			ents, err := os.ReadDir(filepath.Dir(concurrent))
			require.NoError(t, err)
			assert.Len(t, ents, 1, "only the catalog is left beside it")
		})
	}
}

// bundleNames lists the bundles of the catalog in dir.
func bundleNames(t *testing.T, dir string) []string {
	t.Helper()
	cfg, err := declcfg.LoadDir(context.Background(), dir)
	require.NoError(t, err)
	var names []string
	for _, b := range cfg.Bundles {
		names = append(names, b.Name)
	}
	slices.Sort(names)
	return names
}

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// runCrashIn runs the crash binary in the working directory dir with
// TMPDIR dir/tmp, killed at the first step whose name starts with on
// ("" never); it returns stderr and the exit code (-1 when killed).
func runCrashIn(t *testing.T, bin, dir, on string, args ...string) (string, int) {
	t.Helper()
	env := append(os.Environ(), "TMPDIR="+filepath.Join(dir, "tmp"), "OLMCAT_CRASH_ON="+on, "OLMCAT_CRASH_AT=0", "OLMCAT_CRASH_LOG=")
	return runBinaryIn(t, bin, dir, env, args...)
}

// TestKilledTempDirsAreSwept (issue 25, items 2 and 12): a command
// killed while it creates a temporary directory (before its lock), while
// it commits, or in the middle of removing one, leaves only directories a
// later run recognises as olmcat's by their names; the next run removes
// them and says so. Before, a kill during removal could leave a whole old
// catalog without its owner marker, a kill at creation a directory holding
// only the marker's staging file, index add|rm --tag built in a plain
// temporary directory, and index rm --generate, registry rm --output,
// build and alpha bundle generate swept without a word.
func TestKilledTempDirsAreSwept(t *testing.T) {
	bin := buildCrashBinary(t)
	reg := imagetest.New(t)
	_, imageFlags := imageTestEnv(t)
	require.NoError(t, os.WriteFile(os.Getenv(image.RegistriesConfEnv), nil, 0o644))
	small, err := filepath.Abs(filepath.Join(legacyFixtures, "small-fbb", "index.db"))
	require.NoError(t, err)
	cases := []struct {
		name string
		// replaces: an earlier output is moved into the temporary
		// directory (old/) and removed with it.
		replaces bool
		// steps replace the default steps (a command without a commit
		// record).
		steps []string
		setup func(t *testing.T, dir string) []string
	}{{
		name: "migrate --force", replaces: true,
		setup: func(t *testing.T, dir string) []string {
			copyTree(t, opmManifests, filepath.Join(dir, "out"))
			return []string{"migrate", "--no-deprecation-warning", "--force", small, "out"}
		},
	}, {
		name: "registry rm --output --force", replaces: true,
		setup: func(t *testing.T, dir string) []string {
			copyTree(t, opmManifests, filepath.Join(dir, "out"))
			return []string{"registry", "rm", "--no-deprecation-warning", "-d", small, "-o", "bar", "--output", "out", "--force"}
		},
	}, {
		name: "index rm --generate --force", replaces: true,
		setup: func(t *testing.T, dir string) []string {
			copyTree(t, opmManifests, filepath.Join(dir, "database"))
			return []string{"index", "rm", "--no-deprecation-warning", "-f", small, "-o", "bar", "--generate", "-i", "example.com/opm:v1", "--force"}
		},
	}, {
		name: "build --oci-layout --force",
		setup: func(t *testing.T, dir string) []string {
			copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", filepath.Join(dir, "in"))
			return []string{"build", "in", "example.com/ns/catalog:v1", "--push=false", "--oci-layout", "oci", "--force"}
		},
	}, {
		name:  "alpha bundle generate",
		steps: []string{"lock temporary directory", "written ", "remove temporary directory"},
		setup: func(t *testing.T, dir string) []string {
			copyTree(t, filepath.Join(fixtureBundles, "opm-bundles/etcd.0.9.0/manifests"), filepath.Join(dir, "bundle", "manifests"))
			return []string{"alpha", "bundle", "generate", "-d", "bundle/manifests", "-p", "etcd", "-c", "alpha"}
		},
	}, {
		name: "index rm --tag",
		setup: func(t *testing.T, dir string) []string {
			return append([]string{"index", "rm", "--no-deprecation-warning", "-f", small, "-o", "bar", "-t", reg.Host + "/sweep/index:v1"}, imageFlags...)
		},
	}}
	for _, c := range cases {
		steps := []string{"lock temporary directory", "write commit record", "remove temporary directory", "remove trash entry"}
		if c.steps != nil {
			steps = c.steps
		}
		if c.replaces {
			// The previous catalog, removed after the commit: the owner
			// marker of a directory removed in place could go before it.
			steps = append(steps, "remove trash entry old")
		}
		for _, step := range steps {
			t.Run(c.name+"/"+step, func(t *testing.T) {
				dir := t.TempDir()
				require.NoError(t, os.Mkdir(filepath.Join(dir, "tmp"), 0o755))
				args := c.setup(t, dir)
				stderr, code := runCrashIn(t, bin, dir, step, args...)
				require.Equal(t, -1, code, "not killed at %q: %s", step, stderr)
				left := tempLeft(t, dir)
				require.NotEmpty(t, left, "a kill at %q leaves a temporary directory", step)
				requireSweepable(t, left, "kill at "+step)

				stderr, code = runCrashIn(t, bin, dir, "", args...)
				require.Equal(t, 0, code, stderr)
				assert.Empty(t, tempLeft(t, dir), "the rerun sweeps what the kill left")
				for _, p := range left {
					assert.Regexp(t, "(removed abandoned temporary directory|finished the write of .*temporary directory) \\S*"+regexp.QuoteMeta(filepath.Base(p)), stderr, "the rerun says what it did")
				}
			})
		}
	}
}

package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

func TestParityCommand(t *testing.T) {
	fixture := func(name, what string) string { return filepath.Join("..", "..", "fixtures", "legacy", name, what) }
	smallDB, smallDir := fixture("small-fbb", "index.db"), fixture("small-fbb", "opm-migrate")
	edgeDB, edgeDir := fixture("edge-substitutes", "index.db"), fixture("edge-substitutes", "opm-migrate")

	tests := []struct {
		name       string
		args       []string
		code       int
		stdout     []string
		stderr     []string
		noStderr   []string
		jsonResult bool
		// jsonDiffs is how many differences -o json must list (-1: all).
		jsonDiffs int
	}{
		{
			name:   "parity with benign differences",
			args:   []string{"parity", smallDB, smallDir},
			code:   exitOK,
			stdout: []string{"GetBundleForChannel", "plural-sqlite-only", "PARITY: no loss"},
			stderr: []string{"legacy sqlite index", migrateCommand(smallDB, "")},
		},
		{
			name:     "strict fails on benign differences",
			args:     []string{"parity", "--strict", "--no-deprecation-warning", smallDB, smallDir},
			code:     exitInvalid,
			stdout:   []string{"DIFFERENT (strict)"},
			stderr:   []string{"failing with --strict"},
			noStderr: []string{"legacy sqlite index"},
		},
		{
			name:   "identical catalogs pass strict",
			args:   []string{"parity", "--strict", smallDir, smallDir},
			code:   exitOK,
			stdout: []string{"all identical"},
		},
		{
			name:   "opm lost the olm.constraint dependency",
			args:   []string{"parity", "--max-diffs", "1", edgeDB, edgeDir},
			code:   exitInvalid,
			stdout: []string{"LOSS ", "dependency-missing", "Differences (first 1 of"},
			stderr: []string{"calls lost data"},
		},
		{
			name:       "json output",
			args:       []string{"parity", "-o", "json", "--no-deprecation-warning", edgeDB, edgeDir},
			code:       exitInvalid,
			jsonResult: true,
			jsonDiffs:  -1,
		},
		{
			name:       "json output honours --max-diffs",
			args:       []string{"parity", "-o", "json", "--max-diffs", "3", "--no-deprecation-warning", edgeDB, edgeDir},
			code:       exitInvalid,
			jsonResult: true,
			jsonDiffs:  3,
		},
		{name: "one argument", args: []string{"parity", smallDB}, code: exitUsage},
		{name: "bad output", args: []string{"parity", "-o", "yaml", smallDB, smallDir}, code: exitUsage},
		{name: "bad max-diffs", args: []string{"parity", "--max-diffs", "-1", smallDB, smallDir}, code: exitUsage},
		{name: "unknown flag", args: []string{"parity", "--nope", smallDB, smallDir}, code: exitUsage},
		{
			name:   "missing side",
			args:   []string{"parity", smallDB, filepath.Join(t.TempDir(), "nothing")},
			code:   1,
			stderr: []string{"nothing"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runCLI(t, tt.args...)
			assert.Equal(t, tt.code, code, "stderr: %s", stderr)
			for _, s := range tt.stdout {
				assert.Contains(t, stdout, s)
			}
			for _, s := range tt.stderr {
				assert.Contains(t, stderr, s)
			}
			for _, s := range tt.noStderr {
				assert.NotContains(t, stderr, s)
			}
			if tt.jsonResult {
				var res struct {
					LossCalls int `json:"lossCalls"`
					Diffs     []struct {
						Rule  string `json:"rule"`
						Class string `json:"class"`
					} `json:"diffs"`
					DiffsOmitted int            `json:"diffsOmitted"`
					RulesSeen    map[string]int `json:"rulesSeen"`
				}
				require.NoError(t, json.Unmarshal([]byte(stdout), &res))
				assert.Positive(t, res.LossCalls)
				total := 0
				for _, n := range res.RulesSeen {
					total += n
				}
				assert.Positive(t, res.RulesSeen["dependency-missing"])
				if tt.jsonDiffs < 0 {
					// Every difference is listed (in the order found), the
					// loss among them.
					assert.Len(t, res.Diffs, total)
					assert.Zero(t, res.DiffsOmitted)
					assert.Contains(t, res.Diffs, struct {
						Rule  string `json:"rule"`
						Class string `json:"class"`
					}{"dependency-missing", "loss"})
				} else {
					assert.Len(t, res.Diffs, tt.jsonDiffs)
					assert.Equal(t, total-tt.jsonDiffs, res.DiffsOmitted)
				}
			}
		})
	}
}

func TestMigrateVerify(t *testing.T) {
	smallDB := filepath.Join("..", "..", "fixtures", "legacy", "small-fbb", "index.db")

	t.Run("parity", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "catalog")
		_, stderr, code := runCLI(t, "migrate", "--verify", "--no-deprecation-warning", smallDB, out)
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stderr, "verified: ")
		assert.DirExists(t, filepath.Join(out, "foo"))
	})

	t.Run("a dropped bundle fails the migration", func(t *testing.T) {
		// baz.v1.1.0 gets an invalid image: --drop-invalid-bundles leaves it
		// out, which the database served, so --verify must refuse.
		bundles, err := dbbuild.ReadBundleDirs(filepath.Join("..", "..", "fixtures", "bundles", "small-fbb"), dbbuild.RegistryImage("registry.test/small-fbb/"))
		require.NoError(t, err)
		for i := range bundles {
			if bundles[i].Image == "registry.test/small-fbb/baz-bundle:v1.1.0" {
				bundles[i].Image = "registry.test/small-fbb/baz-bundle@@sha256:1"
			}
		}
		db := filepath.Join(t.TempDir(), "index.db")
		require.NoError(t, dbbuild.Build(context.Background(), db, dbbuild.MaxLevel, bundles))

		out := filepath.Join(t.TempDir(), "catalog")
		_, stderr, code := runCLI(t, "migrate", "--drop-invalid-bundles", "--verify", "--no-deprecation-warning", db, out)
		assert.Equal(t, exitInvalid, code, stderr)
		assert.Contains(t, stderr, "bundle-missing")
		assert.Contains(t, stderr, "baz.v1.1.0")
		assert.NoDirExists(t, out, "nothing written")

		// Without --verify the same migration succeeds.
		_, stderr, code = runCLI(t, "migrate", "--drop-invalid-bundles", "--no-deprecation-warning", db, out)
		assert.Equal(t, exitOK, code, stderr)
	})
}

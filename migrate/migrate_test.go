package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	_ "modernc.org/sqlite"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
)

// copyFile copies src to a new file in dir and returns its path.
func copyFile(t *testing.T, src, dir string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	require.NoError(t, err)
	dst := filepath.Join(dir, filepath.Base(src))
	require.NoError(t, os.WriteFile(dst, data, 0o644))
	return dst
}

// assertNothingWritten checks that out does not exist and that no
// temporary directory was left beside it.
func assertNothingWritten(t *testing.T, out string) {
	t.Helper()
	_, err := os.Stat(out)
	assert.True(t, os.IsNotExist(err), "output %s must not exist", out)
	ents, err := os.ReadDir(filepath.Dir(out))
	require.NoError(t, err)
	for _, e := range ents {
		assert.False(t, e.IsDir(), "leftover directory %s beside the output", e.Name())
	}
}

func TestMigrateCancelledMidway(t *testing.T) {
	db := filepath.Join(fixturesDir, "community-bundles", "index.db")
	dir := t.TempDir()
	out := filepath.Join(dir, "catalog")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	_, err := Migrate(ctx, db, out, WithProgress(func(done, total int) {
		calls++
		if done == 3 {
			cancel()
		}
	}))
	require.ErrorIs(t, err, context.Canceled)
	assert.GreaterOrEqual(t, calls, 3)
	assertNothingWritten(t, out)
}

func TestMigrateBeforeCommitHook(t *testing.T) {
	db := filepath.Join(fixturesDir, "small-fbb", "index.db")
	dir := t.TempDir()
	out := filepath.Join(dir, "catalog")

	// The hook sees the complete, validated catalog before it is visible.
	var seen []string
	_, err := Migrate(context.Background(), db, out, WithBeforeCommit(func(ctx context.Context, tmp string) error {
		_, err := os.Stat(out)
		assert.True(t, os.IsNotExist(err), "nothing visible before commit")
		cfg, err := declcfg.LoadDir(ctx, tmp)
		require.NoError(t, err)
		for _, p := range cfg.Packages {
			seen = append(seen, p.Name)
		}
		return nil
	}))
	require.NoError(t, err)
	assert.Equal(t, []string{"bar", "baz", "foo"}, seen)
	_, err = os.Stat(filepath.Join(out, "foo", "catalog.json"))
	require.NoError(t, err)

	// A failing hook aborts: nothing is written.
	out2 := filepath.Join(t.TempDir(), "catalog")
	boom := errors.New("parity check failed")
	_, err = Migrate(context.Background(), db, out2, WithBeforeCommit(func(context.Context, string) error { return boom }))
	require.ErrorIs(t, err, boom)
	assertNothingWritten(t, out2)
}

func TestMigrateExistingOutput(t *testing.T) {
	db := filepath.Join(fixturesDir, "opreg-foo-index", "index.db")
	out := filepath.Join(t.TempDir(), "catalog")
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "keep"), []byte("x"), 0o644))
	_, err := Migrate(context.Background(), db, out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), out)
	data, err := os.ReadFile(filepath.Join(out, "keep"))
	require.NoError(t, err)
	assert.Equal(t, "x", string(data), "existing output untouched without force")

	_, err = Migrate(context.Background(), db, out, WithForce(true))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(out, "keep"))
	assert.True(t, os.IsNotExist(err), "replaced with force")
	_, err = os.Stat(filepath.Join(out, "foo", "catalog.json"))
	assert.NoError(t, err)
}

func TestMigrateKeepDeprecatedFixture(t *testing.T) {
	db := filepath.Join(fixturesDir, "small-fbb-deprecated", "index.db")
	out := filepath.Join(t.TempDir(), "catalog")
	rep, err := Migrate(context.Background(), db, out, WithKeepDeprecated(true))
	require.NoError(t, err)
	assert.Empty(t, rep.Drops)
	assert.Equal(t, 1, rep.Counts.Deprecations)
	cfg, err := declcfg.LoadDir(context.Background(), out)
	require.NoError(t, err)
	m, err := model.FromDeclcfg(cfg)
	require.NoError(t, err)
	b := m.Packages["foo"].Channels["beta"].Bundles["foo.v0.2.0"]
	require.NotNil(t, b, "the deprecated bundle is kept in its channel")
	assert.Equal(t, "bundle foo.v0.2.0 was deprecated in the legacy index", b.Deprecation)
}

func TestMigrateStaleChannelHead(t *testing.T) {
	db := copyFile(t, filepath.Join(fixturesDir, "small-fbb", "index.db"), t.TempDir())
	testinput.ExecSQL(t, db, `UPDATE channel SET head_operatorbundle_name = 'foo.v9.9.9' WHERE name = 'beta' AND package_name = 'foo'`)
	rep, err := Migrate(context.Background(), db, filepath.Join(t.TempDir(), "catalog"))
	require.NoError(t, err, "the graph comes from channel_entry, as with opm")
	require.Len(t, rep.Notes, 1)
	n := rep.Notes[0]
	assert.Equal(t, NoteStaleChannelHead, n.Kind)
	assert.Equal(t, "foo", n.Package)
	assert.Equal(t, "beta", n.Channel)
	assert.Equal(t, "foo.v9.9.9", n.Value)
}

func TestMigrateDanglingEntryLink(t *testing.T) {
	db := copyFile(t, filepath.Join(fixturesDir, "small-fbb", "index.db"), t.TempDir())
	// baz.v1.0.1's real entry (24) loses its link to baz.v1.0.0 (25).
	testinput.ExecSQL(t, db, `UPDATE channel_entry SET replaces = 999 WHERE entry_id = 24`)
	rep, err := Migrate(context.Background(), db, filepath.Join(t.TempDir(), "catalog"))
	// Nothing leads to baz.v1.0.0 any more: a second head, unservable.
	require.Error(t, err)
	var lines []string
	for _, f := range rep.Drops {
		lines = append(lines, string(f.Kind)+" "+f.Channel+" "+f.Bundle+" "+f.Value)
	}
	assert.Equal(t, []string{"dangling-entry-link stable baz.v1.0.1 999"}, lines)
	require.Len(t, rep.Problems, 1)
	assert.Equal(t, ProblemMultipleHeads, rep.Problems[0].Kind)
	assert.Equal(t, "stable", rep.Problems[0].Channel)
	assert.Contains(t, rep.Problems[0].Detail, "baz.v1.0.0, baz.v1.1.0")
	assert.Contains(t, rep.Drops[0].Detail, "channel_entry row 24")
}

func TestReportJSON(t *testing.T) {
	db := filepath.Join(fixturesDir, "small-fbb-deprecated", "index.db")
	rep, err := Migrate(context.Background(), db, filepath.Join(t.TempDir(), "catalog"))
	require.NoError(t, err)
	data, err := json.Marshal(rep)
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, float64(13), back["schemaLevel"])
	drops := back["drops"].([]any)
	require.Len(t, drops, 1)
	assert.Equal(t, "deprecated-bundle", drops[0].(map[string]any)["kind"])
	assert.Equal(t, "foo.v0.2.0", drops[0].(map[string]any)["bundle"])
	assert.NotEmpty(t, drops[0].(map[string]any)["hint"])
	assert.Equal(t, []any{}, back["problems"])
}

func TestMigrateBadInput(t *testing.T) {
	fixture := filepath.Join(fixturesDir, "small-fbb", "index.db")
	tests := []struct {
		name    string
		setup   func(t *testing.T, dir string) string
		wantErr []string
	}{
		{
			name: "not a database",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "index.db")
				require.NoError(t, os.WriteFile(p, []byte("this is not sqlite\n"), 0o644))
				return p
			},
			wantErr: []string{"index.db"},
		},
		{
			name: "missing file",
			setup: func(t *testing.T, dir string) string {
				return filepath.Join(dir, "nope.db")
			},
			wantErr: []string{"nope.db"},
		},
		{
			name: "empty file",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "index.db")
				require.NoError(t, os.WriteFile(p, nil, 0o644))
				return p
			},
			wantErr: []string{"index.db"},
		},
		{
			name: "truncated database",
			setup: func(t *testing.T, dir string) string {
				data, err := os.ReadFile(fixture)
				require.NoError(t, err)
				p := filepath.Join(dir, "index.db")
				require.NoError(t, os.WriteFile(p, data[:len(data)/3], 0o644))
				return p
			},
			wantErr: []string{"index.db"},
		},
		{
			name: "database without tables",
			setup: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "index.db")
				testinput.ExecSQL(t, p, "CREATE TABLE unrelated (x TEXT)")
				return p
			},
			wantErr: []string{"index.db", "operatorbundle"},
		},
		{
			name: "missing channel_entry table",
			setup: func(t *testing.T, dir string) string {
				p := copyFile(t, fixture, dir)
				testinput.ExecSQL(t, p, "DROP TABLE channel_entry")
				return p
			},
			wantErr: []string{"channel_entry"},
		},
		{
			name: "invalid CSV JSON",
			setup: func(t *testing.T, dir string) string {
				p := copyFile(t, fixture, dir)
				testinput.ExecSQL(t, p, `UPDATE operatorbundle SET csv = '{"kind": "ClusterServiceVersion", bad', bundle = '{"kind": "ClusterServiceVersion", bad' WHERE name = 'foo.v0.3.1'`)
				return p
			},
			wantErr: []string{"foo.v0.3.1"},
		},
		{
			name: "channel entries name missing bundles",
			setup: func(t *testing.T, dir string) string {
				p := copyFile(t, fixture, dir)
				testinput.ExecSQL(t, p, `UPDATE channel_entry SET operatorbundle_name = 'baz.v9.9.9' WHERE package_name = 'baz'`)
				return p
			},
			wantErr: []string{"empty-channel: package baz, channel stable", "use WithKeepDeprecated"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := t.TempDir()
			db := tt.setup(t, in)
			var before []byte
			if data, err := os.ReadFile(db); err == nil {
				before = data
			}
			out := filepath.Join(t.TempDir(), "catalog")
			_, err := Migrate(context.Background(), db, out)
			require.Error(t, err)
			for _, w := range tt.wantErr {
				assert.Contains(t, err.Error(), w)
			}
			assertNothingWritten(t, out)
			if before != nil {
				after, err := os.ReadFile(db)
				require.NoError(t, err)
				assert.Equal(t, before, after, "input must not change")
			}
		})
	}
}

// TestMigrateDeterministic checks that the output and the report do not
// depend on how many workers convert packages.
func TestMigrateDeterministic(t *testing.T) {
	db := filepath.Join(fixturesDir, "community-bundles", "index.db")
	var trees []map[string]string
	var reports []string
	for _, workers := range []int{1, 2, 5} {
		out := filepath.Join(t.TempDir(), "catalog")
		rep, err := Migrate(context.Background(), db, out, WithWorkers(workers))
		require.NoError(t, err)
		rep.Output = ""
		data, err := json.Marshal(rep)
		require.NoError(t, err)
		reports = append(reports, string(data))
		tree := map[string]string{}
		require.NoError(t, filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			rel, _ := filepath.Rel(out, p)
			tree[rel] = string(b)
			return err
		}))
		trees = append(trees, tree)
	}
	for i := 1; i < len(trees); i++ {
		assert.Equal(t, trees[0], trees[i])
		assert.Equal(t, reports[0], reports[i])
	}
}

// TestRenderStopsAtFirstProblem checks that render writes the packages
// before the first unservable one, then fails with every problem.
func TestRenderStopsAtFirstProblem(t *testing.T) {
	db := copyFile(t, filepath.Join(fixturesDir, "small-fbb", "index.db"), t.TempDir())
	testinput.ExecSQL(t, db, `UPDATE operatorbundle SET bundlepath = 'example.com/strimzi/operator@@sha256:abc' WHERE name = 'baz.v1.0.0'`,
		`INSERT INTO related_image VALUES ('example.com/x/y@@sha256:1', 'foo.v0.3.1')`)
	var buf bytes.Buffer
	rep, err := Render(context.Background(), db, &buf)
	var pe *ProblemsError
	require.True(t, errors.As(err, &pe), "got %v", err)
	assert.Len(t, pe.Problems, 2, "problems of later packages are still listed")
	assert.Len(t, rep.Problems, 2)
	out := buf.String()
	assert.Contains(t, out, `"name": "bar"`)
	assert.NotContains(t, out, `"name": "baz"`)
	assert.NotContains(t, out, `"name": "foo"`)
}

func TestRenderAndLoadRefuseMigrateOnlyOptions(t *testing.T) {
	db := filepath.Join(fixturesDir, "small-fbb", "index.db")
	_, err := Render(context.Background(), db, io.Discard, WithForce(true), WithLayout(declcfg.LayoutObjects))
	require.ErrorContains(t, err, "render: WithForce, WithLayout applies to Migrate only")
	_, _, err = Load(context.Background(), db, WithBeforeCommit(func(context.Context, string) error { return nil }))
	require.ErrorContains(t, err, "load: WithBeforeCommit applies to Migrate only")
}

func TestParseLevel(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Level
		err  string
	}{
		{"", MigrateLevelNone, ""},
		{"none", MigrateLevelNone, ""},
		{"bundle-object-to-csv-metadata", MigrateLevelCSVMetadata, ""},
		{"all", MigrateLevelAll, ""},
		{"everything", "", `unknown migrate level "everything" (want one of none, bundle-object-to-csv-metadata, all)`},
	} {
		got, err := ParseLevel(tc.in)
		if tc.err != "" {
			require.EqualError(t, err, tc.err)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	_, err := Migrate(context.Background(), "unused.db", t.TempDir(), WithMigrateLevel("everything"))
	require.ErrorContains(t, err, "unknown migrate level")
}

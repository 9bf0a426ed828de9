//go:build opmrecord

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestRecordOPMIndexGoldens runs the real opm v1.73.0 (OPM, default
// ~/.cache/opm-v1.73.0/opm) on every case and records into
// fixtures/opmindex/<case>/: args, rc and stderr's last error line of
// the last step, and on success what opm migrate makes of the resulting
// database, only the packages that differ from the fixture's own
// recorded opm-migrate (packages lists them all); for opmIndexDBCases,
// also the database itself (index.db) and the registry host:port its
// bundle paths name (registry).
//
//	go test -tags opmrecord -run TestRecordOPMIndexGoldens ./cmd/olmcat
func TestRecordOPMIndexGoldens(t *testing.T) {
	opm := os.Getenv("OPM")
	if opm == "" {
		home, _ := os.UserHomeDir()
		opm = filepath.Join(home, ".cache/opm-v1.73.0/opm")
	}
	for _, c := range opmIndexCases {
		t.Run(c.name, func(t *testing.T) {
			reg := imagetest.New(t)
			refs := pushCaseBundles(t, reg, c)
			work := t.TempDir()
			db := filepath.Join(work, "index.db")
			copyFile(t, filepath.Join("../../fixtures/legacy", c.fixture, "index.db"), db)
			var args []string
			var rc int
			var stderr string
			from := ""
			if c.index {
				from = pushIndexImage(t, reg, c.fixture)
			}
			for _, s := range c.steps {
				args = opmStepArgs(s, db, refs)
				if c.index {
					args = append([]string{"index", s.verb, "-f", from, "--generate", "--use-http"}, opmVerbArgs(s, refs, "-o")...)
					db = filepath.Join(work, "database", "index.db")
				}
				cmd := exec.Command(opm, args...)
				cmd.Dir = work
				var eb bytes.Buffer
				cmd.Stderr = &eb
				err := cmd.Run()
				rc = cmd.ProcessState.ExitCode()
				if rc < 0 {
					require.NoError(t, err)
				}
				stderr = eb.String()
			}
			dir := filepath.Join(opmIndexGoldens, c.name)
			require.NoError(t, os.RemoveAll(dir))
			require.NoError(t, os.MkdirAll(dir, 0o755))
			norm := func(s string) string {
				return strings.ReplaceAll(strings.ReplaceAll(s, reg.Host, registryPlaceholder), db, "index.db")
			}
			write := func(name, text string) {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(norm(text)), 0o644))
			}
			write("args", strings.Join(args[1:], " ")+"\n")
			write("rc", fmt.Sprintf("%d\n", rc))
			write("stderr", lastErrorLines(stderr))
			if rc != 0 {
				return
			}
			if slices.Contains(opmIndexDBCases, c.name) {
				copyFile(t, db, filepath.Join(dir, "index.db"))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "registry"), []byte(reg.Host+"\n"), 0o644))
			}
			out := filepath.Join(work, "migrated")
			b, err := exec.Command(opm, "migrate", db, out).CombinedOutput()
			require.NoError(t, err, string(b))
			ents, err := os.ReadDir(out)
			require.NoError(t, err)
			var pkgs []string
			for _, e := range ents {
				pkgs = append(pkgs, e.Name())
				got, err := os.ReadFile(filepath.Join(out, e.Name(), "catalog.json"))
				require.NoError(t, err)
				fixture, _ := os.ReadFile(filepath.Join("../../fixtures/legacy", c.fixture, "opm-migrate", e.Name(), "catalog.json"))
				if bytes.Equal(got, fixture) {
					continue
				}
				require.NoError(t, os.MkdirAll(filepath.Join(dir, "catalog", e.Name()), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog", e.Name(), "catalog.json"), []byte(norm(string(got))), 0o644))
			}
			write("packages", strings.Join(pkgs, "\n")+"\n")
		})
	}
}

// opmStepArgs is the opm command line of a step on db.
func opmStepArgs(s opmIndexStep, db string, refs map[string]string) []string {
	args := append([]string{"registry", s.verb, "-d", db}, opmVerbArgs(s, refs, "-o")...)
	if s.verb == "add" {
		args = append(args, "--container-tool", "none", "--use-http")
	}
	return args
}

// lastErrorLines keeps the error and fatal log lines of opm's stderr,
// without their time stamps.
func lastErrorLines(stderr string) string {
	var out []string
	for _, l := range strings.Split(stderr, "\n") {
		if !strings.Contains(l, "level=error") && !strings.Contains(l, "level=fatal") && !strings.HasPrefix(l, "Error:") {
			continue
		}
		if i := strings.Index(l, "level="); i >= 0 {
			l = l[i:]
		}
		out = append(out, l)
	}
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

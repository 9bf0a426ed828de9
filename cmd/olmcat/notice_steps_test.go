package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// noticeMarkers open the line of suggested commands in olmcat's notices:
// the sqlite-era commands' deprecation notice and the legacy index
// warning.
var noticeMarkers = []string{"The FBC-native commands for this job:\n", "Migrate it to a declarative config catalog with:\n"}

// suggestedSteps is the command line a notice in stderr suggests ("" if
// there is no notice).
func suggestedSteps(stderr string) string {
	for _, m := range noticeMarkers {
		if _, rest, ok := strings.Cut(stderr, m); ok {
			line, _, _ := strings.Cut(rest, "\n")
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// TestNoticeStepsRun runs, with the real binary, every kind of command
// that prints a notice suggesting commands, on real inputs (bundle,
// sqlite index and catalog images in a loopback registry, database files,
// catalog directories), then runs the suggested command line with sh in
// an empty directory: each one runs and succeeds (a suggested serve
// serves). A command refused for its flags prints no notice.
func TestNoticeStepsRun(t *testing.T) {
	bin := buildBinary(t)
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	bundle := pushBundleImage(t, reg, "bundles/foo:v0.3.1", filepath.Join(fixtureBundles, foo031))
	fooIndex := pushIndexImage(t, reg, "opreg-foo-index")
	smallIndex := pushIndexImage(t, reg, "small-fbb")
	base := reg.Push(t, "opm:v1", imagetest.Image(t, nil, nil, imagetest.Layer(t, imagetest.Entry{Name: "bin/opm", Body: "#!opm"})))
	deprecated := fixtureImages(t, "small-fbb")["foo.v0.2.0"]
	fixtures, err := filepath.Abs("../../fixtures/legacy")
	require.NoError(t, err)
	var resets []func()
	// fresh is a copy of a fixture's index.db or catalog dir; reset puts
	// back every copy (and removes every new output) as it was before
	// the command ran, for the suggested steps to start from the same.
	fresh := func(t *testing.T, fixture, what string) string {
		t.Helper()
		p := filepath.Join(t.TempDir(), "in", filepath.Base(what))
		put := func() {
			require.NoError(t, os.RemoveAll(p))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			if src := filepath.Join(fixtures, fixture, what); what == "index.db" {
				copyFile(t, src, p)
			} else {
				require.NoError(t, os.CopyFS(p, os.DirFS(src)))
			}
		}
		put()
		resets = append(resets, put)
		return p
	}
	newPath := func(t *testing.T, name string) string {
		p := filepath.Join(t.TempDir(), name)
		resets = append(resets, func() { require.NoError(t, os.RemoveAll(p)) })
		return p
	}
	missing := func(t *testing.T) string { return newPath(t, "index.db") }
	for _, tc := range []struct {
		name string
		args func(t *testing.T) []string
		code int
	}{
		{"index add image generate", func(*testing.T) []string {
			return []string{"index", "add", "-b", bundle, "-f", fooIndex, "--generate", "-i", "o.example/opm:1"}
		}, 0},
		{"index add db tag", func(t *testing.T) []string {
			return []string{"index", "add", "-b", bundle, "-f", fresh(t, "opreg-foo-index", "index.db"), "-t", reg.Host + "/out/a:1", "-i", base}
		}, 0},
		{"index add new generate", func(*testing.T) []string {
			return []string{"index", "add", "-b", bundle, "--generate", "-i", "o.example/opm:1", "--mode", "semver"}
		}, 0},
		{"index add generate without -i", func(*testing.T) []string { return []string{"index", "add", "-b", bundle, "--generate"} }, exitUsage},
		{"index add without tag", func(*testing.T) []string { return []string{"index", "add", "-b", bundle, "-f", fooIndex} }, exitUsage},
		{"index rm dir", func(t *testing.T) []string {
			return []string{"index", "rm", "-f", fresh(t, "small-fbb", "opm-migrate"), "-o", "foo", "--generate", "-i", "o.example/opm:1"}
		}, 0},
		{"index prune image tag", func(*testing.T) []string {
			return []string{"index", "prune", "-f", smallIndex, "-p", "foo", "-t", reg.Host + "/out/b:1", "-i", base}
		}, 0},
		{"index prune-stranded db", func(t *testing.T) []string {
			return []string{"index", "prune-stranded", "-f", fresh(t, "small-fbb", "index.db"), "--generate", "-i", "o.example/opm:1"}
		}, 0},
		{"index deprecatetruncate image", func(*testing.T) []string {
			return []string{"index", "deprecatetruncate", "-f", smallIndex, "-b", deprecated, "--generate", "-i", "o.example/opm:1"}
		}, 0},
		{"registry add db", func(t *testing.T) []string {
			return []string{"registry", "add", "-d", fresh(t, "opreg-foo-index", "index.db"), "-b", bundle}
		}, exitUsage},
		{"registry add db output", func(t *testing.T) []string {
			return []string{"registry", "add", "-d", fresh(t, "opreg-foo-index", "index.db"), "-b", bundle, "--output", newPath(t, "o")}
		}, 0},
		{"registry add new", func(t *testing.T) []string {
			return []string{"registry", "add", "-d", missing(t), "-b", bundle, "--mode", "semver"}
		}, 0},
		{"registry add dir", func(t *testing.T) []string {
			return []string{"registry", "add", "-d", fresh(t, "opreg-foo-index", "opm-migrate"), "-b", bundle}
		}, 0},
		{"registry rm db", func(t *testing.T) []string {
			return []string{"registry", "rm", "-d", fresh(t, "small-fbb", "index.db"), "-o", "foo"}
		}, exitUsage},
		{"registry prune dir", func(t *testing.T) []string {
			return []string{"registry", "prune", "-d", fresh(t, "small-fbb", "opm-migrate"), "-p", "foo"}
		}, 0},
		{"registry prune-stranded db", func(t *testing.T) []string {
			return []string{"registry", "prune-stranded", "-d", fresh(t, "small-fbb", "index.db")}
		}, exitUsage},
		{"registry deprecatetruncate db", func(t *testing.T) []string {
			return []string{"registry", "deprecatetruncate", "-d", fresh(t, "small-fbb", "index.db"), "-b", deprecated}
		}, exitUsage},
		{"registry deprecatetruncate dir", func(t *testing.T) []string {
			return []string{"registry", "deprecatetruncate", "-d", fresh(t, "small-fbb", "opm-migrate"), "-b", deprecated}
		}, 0},
		{"render db", func(t *testing.T) []string { return []string{"render", fresh(t, "small-fbb", "index.db")} }, 0},
		{"render sqlite image", func(*testing.T) []string { return []string{"render", smallIndex} }, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resets = nil
			args := tc.args(t)
			t.Chdir(t.TempDir())
			stderr, code := runBinary(t, bin, append(args, flags...)...)
			require.Equal(t, tc.code, code, stderr)
			steps := suggestedSteps(stderr)
			if tc.code == exitUsage && !strings.Contains(stderr, "writes no sqlite database") {
				require.Empty(t, steps, "a command refused for its flags suggests nothing: %s", stderr)
				return
			}
			require.NotEmpty(t, steps, stderr)
			for _, r := range resets {
				r()
			}
			runSteps(t, bin, steps, false)
		})
	}
	t.Run("registry serve", func(t *testing.T) {
		for _, in := range []string{fresh(t, "small-fbb", "index.db"), fresh(t, "small-fbb", "opm-migrate")} {
			cmd := exec.Command(bin, "registry", "serve", "-d", in, "-p", "0", "--timeout-seconds", "1")
			out, _ := cmd.CombinedOutput()
			steps := suggestedSteps(string(out))
			require.NotEmpty(t, steps, string(out))
			runSteps(t, bin, steps, true)
		}
	})
}

// runSteps runs the suggested command line steps with sh in an empty
// directory, with bin as olmcat on the PATH, and requires it to succeed;
// with serve, until the server it ends with serves.
func runSteps(t *testing.T, bin, steps string, serve bool) {
	t.Helper()
	cmd := exec.Command("sh", "-c", strings.ReplaceAll(steps, "olmcat serve ", "olmcat serve -p 0 "))
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"), noDeprecationWarningEnv+"=1")
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if !serve {
		require.NoError(t, cmd.Run(), "%s\n%s", steps, out.String())
		return
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	defer func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	require.Eventually(t, func() bool {
		select {
		case <-done:
			return true
		default:
		}
		return servingOn.MatchString(out.String()) || ctx.Err() != nil
	}, time.Minute, 20*time.Millisecond)
	require.Regexp(t, servingOn, out.String(), steps)
}

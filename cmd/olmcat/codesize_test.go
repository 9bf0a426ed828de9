package main

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Size limits of the module's production code: a function that does not
// fit on a screen or two hides its steps, and a file past a few hundred
// lines mixes concerns. Tests, generated code and the harnesses (the test
// tools under internal/testutil and the development tools under scripts,
// the independent oracle among them) are not held to them.
const (
	maxFuncLines = 80
	maxFileLines = 500
	// maxCmdFileLines holds the CLI's files (cmd/olmcat, not its
	// internal packages) to flags -> options -> Run -> print: a workflow
	// that needs more belongs in package action (issue 26).
	maxCmdFileLines = 150
)

// generated matches the header Go's tools write on generated files.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// The kinds of Go code the size report counts apart.
const (
	kindProduction = "production"
	kindHarness    = "harness"
	kindTest       = "test"
	kindGenerated  = "generated"
)

// harnessTrees hold the module's harnesses: what only tests and
// development tools run (cmd/olmcat/depcheck_test.go keeps production
// code from importing them).
var harnessTrees = []string{"internal/testutil", "scripts"}

// codeKind classifies a Go file (path relative to the module root) by
// its name and place; generated production files are told apart by
// their header afterwards.
func codeKind(rel string) string {
	switch {
	case strings.HasSuffix(rel, "_test.go"):
		return kindTest
	case slices.ContainsFunc(harnessTrees, func(h string) bool { return under(rel, h) }):
		return kindHarness
	}
	return kindProduction
}

// TestCodeSize holds production code to the size limits and logs (with
// -v) its lines, the harnesses' and the tests' per top-level directory:
// go test -run TestCodeSize -v ./cmd/olmcat.
func TestCodeSize(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	lines := map[string]map[string]int{} // top-level directory -> kind -> lines
	err := walkOwnFiles(root, func(path, rel string) error {
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		kind := codeKind(rel)
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if kind == kindProduction {
			if kind, err = checkSize(t, fset, rel, src); err != nil {
				return err
			}
		}
		top, _, _ := strings.Cut(rel, "/")
		if lines[top] == nil {
			lines[top] = map[string]int{}
		}
		lines[top][kind] += bytes.Count(src, []byte("\n"))
		return nil
	})
	require.NoError(t, err)
	logCodeLines(t, lines)
}

// walkOwnFiles calls fn with the path and slash path relative to root of
// every file the project wrote itself: not under fixtures/ (real data),
// a testdata/ directory (recorded data), bin/ (builds) or a hidden one,
// and, in a git checkout, not one git ignores: what a user's runs leave
// in the tree (the README's example catalog, built binaries) is theirs.
func walkOwnFiles(root string, fn func(path, rel string) error) error {
	skipDir := func(rel string) bool {
		name := path.Base(rel)
		return rel == "fixtures" || rel == "bin" || name == "testdata" || strings.HasPrefix(name, ".") && rel != "."
	}
	// Files git tracks or would track (untracked, not ignored).
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if d.IsDir() {
				if skipDir(rel) {
					return filepath.SkipDir
				}
				return nil
			}
			return fn(p, rel)
		})
	}
	for _, rel := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if rel == "" || slices.ContainsFunc(dirsOf(rel), skipDir) {
			continue
		}
		p := filepath.Join(root, filepath.FromSlash(rel))
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			continue // tracked, deleted in the working tree
		}
		if err := fn(p, rel); err != nil {
			return err
		}
	}
	return nil
}

// dirsOf returns the directories rel lies in, outermost first: a/b/c is
// in a and a/b.
func dirsOf(rel string) []string {
	var dirs []string
	for i := range len(rel) {
		if rel[i] == '/' {
			dirs = append(dirs, rel[:i])
		}
	}
	return dirs
}

// checkSize holds one production file to the size limits. It returns the
// file's kind: generated files are not held to them.
func checkSize(t *testing.T, fset *token.FileSet, rel string, src []byte) (string, error) {
	t.Helper()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	for _, c := range f.Comments {
		if generatedHeader(c) {
			return kindGenerated, nil
		}
	}
	n := fset.Position(f.FileEnd).Line
	assert.LessOrEqual(t, n, maxFileLines, "%s: %d lines (at most %d): split it by concern", rel, n, maxFileLines)
	if path.Dir(rel) == "cmd/olmcat" {
		assert.LessOrEqual(t, n, maxCmdFileLines, "%s: %d lines (at most %d): move the workflow into package action", rel, n, maxCmdFileLines)
	}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
		assert.LessOrEqual(t, n, maxFuncLines, "%s: func %s is %d lines (at most %d): split it into steps", rel, fn.Name.Name, n, maxFuncLines)
	}
	return kindProduction, nil
}

// logCodeLines logs the table of Go lines per top-level directory and
// kind, with a total row.
func logCodeLines(t *testing.T, lines map[string]map[string]int) {
	t.Helper()
	kinds := []string{kindProduction, kindHarness, kindTest, kindGenerated}
	var b strings.Builder
	fmt.Fprintf(&b, "Go lines per top-level directory:\n%-10s", "")
	for _, k := range kinds {
		fmt.Fprintf(&b, "%12s", k)
	}
	row := func(name string, n map[string]int) {
		fmt.Fprintf(&b, "\n%-10s", name)
		for _, k := range kinds {
			fmt.Fprintf(&b, "%12d", n[k])
		}
	}
	total := map[string]int{}
	tops := slices.Sorted(maps.Keys(lines))
	for _, top := range tops {
		row(top, lines[top])
		for k, n := range lines[top] {
			total[k] += n
		}
	}
	row("total", total)
	t.Log(b.String())
}

// generatedHeader reports whether a comment group holds Go's
// generated-code marker line.
func generatedHeader(c *ast.CommentGroup) bool {
	for _, l := range c.List {
		if generated.MatchString(l.Text) {
			return true
		}
	}
	return false
}

// What a user's run leaves in the checkout and git ignores (the README's
// example catalog, which names public registries) is not the project's files.
func TestWalkOwnFilesLeavesIgnored(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, exec.Command("git", "-C", root, "init", "-q").Run())
	for rel, data := range map[string]string{
		".gitignore":              "/opm-manifests-catalog/\n",
		"a.go":                    "package a\n",
		"opm-manifests-catalog/x": "a user's output\n",
		"fixtures/f":              "real data\n",
		"sub/testdata/t":          "recorded\n",
		".ci/run":                 "hidden\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	}
	var got []string
	require.NoError(t, walkOwnFiles(root, func(_, rel string) error { got = append(got, rel); return nil }))
	slices.Sort(got)
	assert.Equal(t, []string{".gitignore", "a.go"}, got)
}

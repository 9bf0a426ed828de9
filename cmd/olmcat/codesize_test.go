package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Size limits of the module's production code: a function that does not
// fit on a screen or two hides its steps, and a file past a few hundred
// lines mixes concerns. Tests, generated code and the fixtures (the
// independent oracle and its data) are not held to them.
const (
	maxFuncLines = 80
	maxFileLines = 500
)

// generated matches the header Go's tools write on generated files.
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

func TestCodeSize(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "fixtures" || strings.HasPrefix(d.Name(), ".") && rel != "." || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, c := range f.Comments {
			if generatedHeader(c) {
				return nil
			}
		}
		n := fset.Position(f.FileEnd).Line
		assert.LessOrEqual(t, n, maxFileLines, "%s: %d lines (at most %d): split it by concern", rel, n, maxFileLines)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			assert.LessOrEqual(t, n, maxFuncLines, "%s: func %s is %d lines (at most %d): split it into steps", rel, fn.Name.Name, n, maxFuncLines)
		}
		return nil
	})
	require.NoError(t, err)
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

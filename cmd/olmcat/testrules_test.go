package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The test code's conventions, checked like the layering rules beside
// them: tests fail through testify (require where the test stops, assert
// where it goes on), so every failure reads the same way; and a helper
// that takes the test's handle marks itself with Helper, so a failure
// names the test's line, not the helper's.

// failMethods are the testing handle's own ways to fail that testify
// replaces.
var failMethods = map[string]bool{"Fatal": true, "Fatalf": true, "Error": true, "Errorf": true, "Fail": true, "FailNow": true}

// testFile is a parsed file of the module that uses package testing: a
// *_test.go file or a test harness (a package such as imagetest that
// tests import).
type testFile struct {
	rel  string // slash-separated, relative to the module root
	file *ast.File
}

// testFiles parses every Go file of the module that imports testing.
func testFiles(t *testing.T, fset *token.FileSet) []testFile {
	t.Helper()
	root := moduleRoot(t)
	var out []testFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if importName(f, "testing") != "" {
			out = append(out, testFile{rel: rel, file: f})
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, out, "no test files found under %s", root)
	return out
}

// importName is the name under which f imports path, "" when it does not.
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, err := strconv.Unquote(imp.Path.Value); err != nil || p != path {
			continue
		}
		if imp.Name != nil {
			return imp.Name.Name
		}
		return path[strings.LastIndex(path, "/")+1:]
	}
	return ""
}

// isHandle reports whether e is the type of a test's handle: testing.TB,
// *testing.T, *testing.B or *testing.F, with testing imported as pkg.
func isHandle(e ast.Expr, pkg string) bool {
	pointer := false
	if star, ok := e.(*ast.StarExpr); ok {
		pointer, e = true, star.X
	}
	sel, ok := e.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	if id, ok := sel.X.(*ast.Ident); !ok || id.Name != pkg {
		return false
	}
	switch sel.Sel.Name {
	case "TB":
		return !pointer
	case "T", "B", "F":
		return pointer
	}
	return false
}

// bareFailures lists the calls in f that fail a test through its handle
// (t.Fatalf, b.Error, tb.Fatal, ...) rather than through testify. A
// handle is a parameter of a handle type of the enclosing function or of
// a function around it (closures see their test's t), or a struct field
// of a handle type.
func bareFailures(fset *token.FileSet, f *ast.File) []string {
	pkg := importName(f, "testing")
	if pkg == "" {
		return nil
	}
	fields := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if st, ok := n.(*ast.StructType); ok {
			for _, fl := range st.Fields.List {
				for _, name := range fl.Names {
					if isHandle(fl.Type, pkg) {
						fields[name.Name] = true
					}
				}
			}
		}
		return true
	})
	var out []string
	var walk func(n ast.Node, handles map[string]bool)
	walk = func(n ast.Node, handles map[string]bool) {
		ast.Inspect(n, func(n ast.Node) bool {
			var typ *ast.FuncType
			var body *ast.BlockStmt
			switch n := n.(type) {
			case *ast.FuncDecl:
				typ, body = n.Type, n.Body
			case *ast.FuncLit:
				typ, body = n.Type, n.Body
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && failMethods[sel.Sel.Name] {
					switch x := sel.X.(type) {
					case *ast.Ident:
						if handles[x.Name] {
							out = append(out, fmt.Sprintf("%s: %s.%s", fset.Position(n.Pos()), x.Name, sel.Sel.Name))
						}
					case *ast.SelectorExpr:
						if fields[x.Sel.Name] {
							out = append(out, fmt.Sprintf("%s: .%s.%s", fset.Position(n.Pos()), x.Sel.Name, sel.Sel.Name))
						}
					}
				}
				return true
			default:
				return true
			}
			if body == nil {
				return false
			}
			inner := maps.Clone(handles)
			for _, fl := range typ.Params.List {
				for _, name := range fl.Names {
					inner[name.Name] = isHandle(fl.Type, pkg)
				}
			}
			walk(body, inner)
			return false
		})
	}
	walk(f, map[string]bool{})
	return out
}

// isEntryPoint reports whether name is one go test runs itself: Test,
// Benchmark, Fuzz or Example, alone or followed by a non-lower-case rune.
func isEntryPoint(name string) bool {
	for _, prefix := range []string{"Test", "Benchmark", "Fuzz", "Example"} {
		rest, ok := strings.CutPrefix(name, prefix)
		if !ok {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(rest); rest == "" || !unicode.IsLower(r) {
			return true
		}
	}
	return false
}

// unmarkedHelpers lists the functions and methods of f that take a test's
// handle as their first parameter, are not what go test runs, and do not
// start by calling the handle's Helper.
func unmarkedHelpers(fset *token.FileSet, f *ast.File) []string {
	pkg := importName(f, "testing")
	if pkg == "" {
		return nil
	}
	var out []string
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || fn.Recv == nil && isEntryPoint(fn.Name.Name) {
			continue
		}
		params := fn.Type.Params.List
		if len(params) == 0 || !isHandle(params[0].Type, pkg) || len(params[0].Names) == 0 || params[0].Names[0].Name == "_" {
			continue
		}
		if !callsHelperFirst(fn.Body, params[0].Names[0].Name) {
			out = append(out, fmt.Sprintf("%s: %s does not start with %s.Helper()", fset.Position(fn.Pos()), fn.Name.Name, params[0].Names[0].Name))
		}
	}
	return out
}

// callsHelperFirst reports whether body's first statement is handle.Helper().
func callsHelperFirst(body *ast.BlockStmt, handle string) bool {
	if len(body.List) == 0 {
		return false
	}
	es, ok := body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := es.X.(*ast.CallExpr)
	if !ok || len(call.Args) != 0 {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Helper" {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == handle
}

// TestTestsAssertWithTestify: no test or test harness of the module fails
// through t.Fatal, t.Fatalf, t.Error, t.Errorf, t.Fail or t.FailNow (or
// b., f., tb.); it uses testify's require and assert.
func TestTestsAssertWithTestify(t *testing.T) {
	fset := token.NewFileSet()
	for _, tf := range testFiles(t, fset) {
		assert.Empty(t, bareFailures(fset, tf.file), "%s fails tests without testify (use require where the test stops, assert where it goes on)", tf.rel)
	}
}

// TestTestHelpersCallHelper: every helper in the module's test files and
// test harnesses that takes the test's handle first marks itself with
// Helper before anything else.
func TestTestHelpersCallHelper(t *testing.T) {
	fset := token.NewFileSet()
	for _, tf := range testFiles(t, fset) {
		assert.Empty(t, unmarkedHelpers(fset, tf.file), "%s has helpers that do not call Helper first", tf.rel)
	}
}

// TestTestRulesCatch: the two checks see what they are meant to see, and
// nothing else.
func TestTestRulesCatch(t *testing.T) {
	for _, tc := range []struct {
		name     string
		src      string
		bare     int
		unmarked int
	}{
		{
			name: "testify only",
			src: `func TestX(t *testing.T) { require.NoError(t, nil); assert.Equal(t, 1, 1) }
func helper(tb testing.TB) { tb.Helper(); require.True(tb, true) }`,
		},
		{
			name: "every handle type",
			src: `func TestX(t *testing.T) { t.Fatal("x"); t.Errorf("%d", 1) }
func BenchmarkX(b *testing.B) { b.Fatalf("x") }
func FuzzX(f *testing.F) { f.Error("x"); f.FailNow() }
func helper(tb testing.TB) { tb.Helper(); tb.Fatal("x") }`,
			bare: 6,
		},
		{
			name: "closures see the test's handle",
			src:  `func TestX(t *testing.T) { t.Run("a", func(t *testing.T) { t.Error("x") }); go func() { t.Fatal("y") }() }`,
			bare: 2,
		},
		{
			name: "a struct field holding the handle",
			src: `type server struct{ t testing.TB }
func (s *server) stop() { s.t.Fatalf("x") }`,
			bare: 1,
		},
		{
			name: "not a handle",
			src: `func TestX(t *testing.T) { var err error; _ = err.Error(); f := func(t error) { _ = t.Error() }; f(nil) }
func g(b *strings.Builder) { b.Error() }`,
		},
		{
			name:     "helpers without Helper",
			src:      "func open(t *testing.T) { require.True(t, true) }\nfunc (s *S) stop(tb testing.TB) { x := 1; tb.Helper(); _ = x }\nfunc bench(b *testing.B) { t.Helper() }",
			unmarked: 3,
		},
		{
			name: "what go test runs and what is no helper",
			src: `func TestMain(m *testing.M) {}
func Test(t *testing.T) {}
func TestX(t *testing.T) {}
func Benchmark_x(b *testing.B) {}
func ExampleX() {}
func run(name string, t *testing.T) {}
func ignore(_ *testing.T) {}`,
		},
		{
			name:     "a lower-case name after the prefix is a helper",
			src:      `func testdata(t *testing.T) {}`,
			unmarked: 1,
		},
		{
			name:     "testing imported under another name",
			src:      `func helper(tt *tst.T) { tt.Fatal("x") }`,
			bare:     1,
			unmarked: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			imp := `"testing"`
			if strings.Contains(tc.src, "tst.") {
				imp = `tst "testing"`
			}
			src := "package p\nimport " + imp + "\n" + tc.src
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "p_test.go", src, parser.SkipObjectResolution)
			require.NoError(t, err)
			assert.Len(t, bareFailures(fset, f), tc.bare, "bare failures")
			assert.Len(t, unmarkedHelpers(fset, f), tc.unmarked, "helpers without Helper")
		})
	}
}

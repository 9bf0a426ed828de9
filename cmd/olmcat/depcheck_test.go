package main

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The dependency rules of the module, checked in the style of
// go-containerregistry's cmd/crane/depcheck_test.go: the layers stay
// layers, the oracle stays independent, and only the CLI talks to the
// terminal or reads OLMCAT_* variables.

const module = "github.com/operator-catalog/olmcat/"

// depRules: a package (or, with a trailing "/...", a tree) must not
// depend, directly or transitively, on any package under the listed
// prefixes. "*" means every package of the module except those listed
// under allow.
var depRules = []struct {
	pkg       string
	forbidden []string
	allow     []string
	except    []string // trees under pkg the rule does not cover
}{
	{pkg: "internal/jsonscan", forbidden: []string{"*"}},
	{pkg: "internal/manifest", forbidden: []string{"*"}, allow: []string{"internal/jsonscan"}},
	// The bundle annotation keys, declared once: a leaf of string
	// constants that every layer may use (image classifies bundle images
	// by one of them, the unpack Job copies them).
	{pkg: "bundle/annotation", forbidden: []string{"*"}},
	// The independent oracle: it shares only the keys' spelling.
	{pkg: "internal/testutil/dbbuild", forbidden: []string{"*"}, allow: []string{"bundle/annotation"}},
	// internal/ is the ground floor: shared utilities and test harnesses
	// that depend on nothing of the module above them (the oracle, which
	// depends on nothing, may build a harness's inputs). The pod harness
	// runs the images the image package builds: it may use image. The
	// catalogd test server serves with registry/catalogdhttp.
	{pkg: "internal/...", forbidden: []string{"*"}, allow: []string{"internal", "bundle/annotation"}, except: []string{"internal/testutil/podrun", "internal/testutil/catalogdtest"}},
	{pkg: "internal/testutil/catalogdtest", forbidden: []string{"*"}, allow: []string{"internal", "registry/catalogdhttp", "declcfg"}},
	{pkg: "internal/testutil/podrun/...", forbidden: []string{"*"}, allow: []string{"internal", "image", "bundle/annotation"}},
	// The bundle format, reading a bundle from files (which declcfg's
	// index ops use), generating its metadata and validating it: no
	// images, cluster, serving or CLI. The image build, bundle/bundleimage,
	// is the one part that uses image (and image never uses it).
	{pkg: "bundle/...", forbidden: []string{"image", "unpack", "input", "registry", "migrate", "legacy", "cmd"}, except: []string{"bundle/bundleimage"}},
	{pkg: "bundle/bundleimage", forbidden: []string{"unpack", "input", "registry", "migrate", "legacy", "cmd"}},
	{pkg: "legacy", forbidden: []string{"declcfg", "migrate", "registry", "image", "cmd"}},
	{pkg: "declcfg/...", forbidden: []string{"legacy", "migrate", "registry", "image", "cmd"}},
	// The model is built from declcfg's blob types (model imports declcfg,
	// so the conversion lives in model/fromdeclcfg.go) and sits right above
	// it: only declcfg and internal packages below it, none of declcfg's
	// other subpackages (they build on the model).
	{pkg: "declcfg/model", forbidden: []string{"*"}, allow: []string{"declcfg", "internal", "bundle/annotation"}},
	{pkg: "declcfg/model", forbidden: []string{"declcfg/graph", "declcfg/template", "declcfg/indexop"}},
	{pkg: "image", forbidden: []string{"*"}, allow: []string{"bundle/annotation", "internal/jsonscan", "internal/manifest", "internal/tempdir", "internal/outdir", "internal/writelock", "internal/crashpoint", "internal/pathcheck"}},
	{pkg: "unpack", forbidden: []string{"*"}, allow: []string{"bundle/annotation", "internal/jsonscan", "internal/manifest", "internal/atomicfile", "internal/tempdir", "internal/crashpoint", "internal/pathcheck"}},
	{pkg: "unpack/jobtool", forbidden: []string{"*"}, allow: []string{"bundle/annotation"}},
	{pkg: "migrate", forbidden: []string{"registry", "cmd"}},
	{pkg: "registry/...", forbidden: []string{"migrate", "cmd"}},
	// input owns "what is this argument" for every command: it pulls
	// through image and reads files, and knows nothing of what a command
	// then does with the input (serve it, migrate it): no registry,
	// migrate, legacy or cmd.
	{pkg: "input", forbidden: []string{"*"}, allow: []string{"image", "internal", "declcfg", "bundle/annotation"}},
	// The action layer holds the commands' workflows on top of every
	// library: it may use any package of the module but the CLI (see
	// TestOnlyTheCLIRunsActions for who may use it).
	{pkg: "action/...", forbidden: []string{"cmd"}},
}

// actionUsers are the only trees that may depend on the action layer:
// the CLI runs actions; libraries are what actions are made of.
var actionUsers = []string{"cmd"}

// TestOnlyTheCLIRunsActions: no package but the CLI's (and the action
// layer itself) depends on package action.
func TestOnlyTheCLIRunsActions(t *testing.T) {
	pkgs := modulePackages(t, moduleRoot(t))
	require.Contains(t, pkgs, "action")
	for pkg := range pkgs {
		if under(pkg, "action") || slices.ContainsFunc(actionUsers, func(u string) bool { return under(pkg, u) }) {
			continue
		}
		for _, d := range deps(pkgs, pkg) {
			assert.False(t, under(d, "action"), "%s depends on %s: only the CLI (%v) runs actions", pkg, d, actionUsers)
		}
	}
}

// sourceImporters are the only files of the CLI that may import
// registry/source: the serving commands. Every command starts from
// package input; registry/source serves what input resolved.
var sourceImporters = []string{"serve.go", "serve_limits.go", "serve_slim.go"}

// TestCommandsStartFromInput: the commands resolve their arguments with
// package input only: no command but serve reaches for registry/source,
// and none pulls a catalog or reads an image's kind itself.
func TestCommandsStartFromInput(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		require.NoError(t, err)
		for _, imp := range f.Imports {
			assert.False(t, imp.Path.Value == strconv.Quote(module+"registry/source") && !slices.Contains(sourceImporters, file),
				"%s imports registry/source: commands resolve their inputs with package input", file)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "image" && (sel.Sel.Name == "ExtractCatalog" || strings.HasPrefix(sel.Sel.Name, "Kind")) {
					assert.Failf(t, "image use", "%s: uses image.%s: input.Resolve pulls inputs and says what they hold", fset.Position(sel.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}

// treeFiles are the only files of the CLI that add commands to others:
// the two builds' trees and withSubcommands, which they nest.
var treeFiles = []string{"commands.go", "commands_slim.go", "groups.go"}

// TestCommandTreeInOneFile: each build's command tree is assembled in one
// file, every parent with its children, so no part of the tree depends on
// the order in which other files run (issue 26 item 5).
func TestCommandTreeInOneFile(t *testing.T) {
	files, err := filepath.Glob("*.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") || slices.Contains(treeFiles, file) {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok && slices.Contains([]string{"AddCommand", "RemoveCommand"}, sel.Sel.Name) {
				assert.Failf(t, "command tree", "%s: %s outside %v: the tree is assembled in one file per build", fset.Position(sel.Pos()), sel.Sel.Name, treeFiles)
			}
			return true
		})
	}
}

// TestEveryCommandHasItsFile: each command of the full build lives in a
// file named for its path, the group's words joined by "_" and a verb's
// hyphens dropped ("index prune-stranded": index_prunestranded.go), so
// the file of any command is found from its name (issue 26 item 5). A
// group whose subcommands one constructor makes (alpha list, generate)
// keeps them all in the group's file instead.
func TestEveryCommandHasItsFile(t *testing.T) {
	fileOf := func(path []string) string { return strings.Join(path, "_") + ".go" }
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		var leaves, own [][]string
		for _, sub := range c.Commands() {
			if sub.Name() == "help" || sub.Name() == "completion" {
				continue
			}
			p := append(slices.Clone(path), strings.ReplaceAll(sub.Name(), "-", ""))
			if sub.HasSubCommands() {
				walk(sub, p)
				continue
			}
			leaves = append(leaves, p)
			if _, err := os.Stat(fileOf(p)); err == nil {
				own = append(own, p)
			}
		}
		if len(own) > 0 || len(path) == 0 {
			for _, p := range leaves {
				assert.FileExists(t, fileOf(p), "the file of %q", c.CommandPath()+" "+p[len(p)-1])
			}
		} else if len(leaves) > 0 {
			assert.FileExists(t, fileOf(path), "the file of %q and its subcommands", c.CommandPath())
		}
	}
	walk(newRootCmd(), nil)
}

// testHarnesses is the tree of the module's test harnesses: the
// independent oracle that builds legacy databases, the catalog generator,
// the loopback registry and the pod harness on runc, the test API server.
// No production package (anything but the harnesses themselves and the
// development tools under scripts/) may depend on them; tests (_test.go
// files, not seen by modulePackages) may.
var testHarnesses = []string{"internal/testutil"}

// testTools are the trees of development tools that may use the harnesses.
var testTools = []string{"scripts"}

func TestNoProductionCodeUsesTestHarnesses(t *testing.T) {
	pkgs := modulePackages(t, moduleRoot(t))
	require.Contains(t, pkgs, "internal/testutil/podrun")
	for pkg := range pkgs {
		if slices.ContainsFunc(append(testHarnesses, testTools...), func(h string) bool { return under(pkg, h) }) {
			continue
		}
		for _, d := range deps(pkgs, pkg) {
			for _, h := range testHarnesses {
				assert.False(t, under(d, h), "%s depends on the test harness %s", pkg, d)
			}
		}
	}
}

// moduleRoot is the directory holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(root, "go.mod"))
	require.NoError(t, err, "module root")
	return root
}

// modulePackages maps each package of the module (path relative to the
// module) to its non-test imports inside the module.
func modulePackages(t *testing.T, root string) map[string][]string {
	t.Helper()
	pkgs := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		p, err := build.Default.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files here
		}
		rel, _ := filepath.Rel(root, path)
		var imps []string
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, module) {
				imps = append(imps, strings.TrimPrefix(imp, module))
			}
		}
		pkgs[filepath.ToSlash(rel)] = imps
		return nil
	})
	require.NoError(t, err)
	return pkgs
}

func deps(pkgs map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, d := range pkgs[p] {
			if !seen[d] {
				seen[d] = true
				walk(d)
			}
		}
	}
	walk(pkg)
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

func under(pkg, prefix string) bool { return pkg == prefix || strings.HasPrefix(pkg, prefix+"/") }

func TestDependencyRules(t *testing.T) {
	root := moduleRoot(t)
	pkgs := modulePackages(t, root)
	for _, rule := range depRules {
		matched := false
		for pkg := range pkgs {
			if !(pkg == rule.pkg || strings.HasSuffix(rule.pkg, "/...") && under(pkg, strings.TrimSuffix(rule.pkg, "/..."))) ||
				slices.ContainsFunc(rule.except, func(e string) bool { return under(pkg, e) }) {
				continue
			}
			matched = true
			for _, d := range deps(pkgs, pkg) {
				for _, f := range rule.forbidden {
					allowed := false
					for _, a := range rule.allow {
						allowed = allowed || under(d, a)
					}
					bad := (f == "*" && !allowed && !under(d, pkg)) || (f != "*" && under(d, f))
					assert.False(t, bad, "%s depends on %s (rule: %s must not depend on %s)", pkg, d, rule.pkg, f)
				}
			}
		}
		assert.True(t, matched, "rule for %s matches no package", rule.pkg)
	}
}

// TestBundleKeysDeclaredOnce: the bundle annotation keys (which bundle
// images also carry as labels) are spelled out only in bundle/annotation;
// every other production file, whatever its build tags, names them from
// there. Tests may spell them out: they check the values.
func TestBundleKeysDeclaredOnce(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	var spelled []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() || !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || filepath.ToSlash(filepath.Dir(rel)) == "bundle/annotation" {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "operators.operatorframework.io.bundle.") {
				spelled = append(spelled, fmt.Sprintf("%s: %s", fset.Position(lit.Pos()), lit.Value))
			}
			return true
		})
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, spelled, "production code spelling out a bundle annotation key: use bundle/annotation")
}

// TestOnlyTheCLITalksToTheTerminal: library code (every non-main package)
// neither writes to stdout/stderr nor names an OLMCAT_* variable.
func TestOnlyTheCLITalksToTheTerminal(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	for pkg := range modulePackages(t, root) {
		dir := filepath.Join(root, filepath.FromSlash(pkg))
		p, err := build.Default.ImportDir(dir, 0)
		if err != nil || p.Name == "main" {
			continue
		}
		for _, name := range p.GoFiles {
			file := filepath.Join(dir, name)
			f, err := parser.ParseFile(fset, file, nil, 0)
			require.NoError(t, err)
			assert.Empty(t, terminalUse(f), "%s/%s", pkg, name)
		}
	}
}

// terminalUse lists what in f writes to the terminal or reads OLMCAT_*.
func terminalUse(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			id, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			switch {
			case id.Name == "os" && (n.Sel.Name == "Stdout" || n.Sel.Name == "Stderr"):
				out = append(out, "uses os."+n.Sel.Name)
			case id.Name == "fmt" && strings.HasPrefix(n.Sel.Name, "Print"):
				out = append(out, "calls fmt."+n.Sel.Name)
			case id.Name == "log" && (strings.HasPrefix(n.Sel.Name, "Print") || strings.HasPrefix(n.Sel.Name, "Fatal")):
				out = append(out, "calls log."+n.Sel.Name)
			}
		case *ast.BasicLit:
			if n.Kind == token.STRING {
				if s, err := strconv.Unquote(n.Value); err == nil && strings.Contains(s, "OLMCAT_") {
					out = append(out, "names an OLMCAT_ variable: "+n.Value)
				}
			}
		}
		return true
	})
	return out
}

// TestDepCheckCatches: the checks see what they are meant to see.
func TestDepCheckCatches(t *testing.T) {
	src := `package p
import ("fmt"; "log"; "os")
func f() { fmt.Println(); log.Printf(""); _ = os.Stderr; _ = os.Getenv("OLMCAT_X"); fmt.Fprintln(os.Stdout) }`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	require.NoError(t, err)
	require.Len(t, terminalUse(f), 5, "terminalUse finds the 5 uses")
	pkgs := map[string][]string{"a": {"b"}, "b": {"c"}, "c": nil}
	require.Equal(t, []string{"b", "c"}, deps(pkgs, "a"), "deps(a) is transitive")
}

// flagOrCommand returns a pattern of what only the CLI may name: a flag
// ("--force") or an olmcat command ("olmcat migrate").
func flagOrCommand() *regexp.Regexp {
	var names []string
	for _, c := range newRootCmd().Commands() {
		names = append(names, regexp.QuoteMeta(c.Name()))
	}
	return regexp.MustCompile(`(^|[\s(\x60'"=])--[a-z][a-z0-9-]*|\bolmcat (` + strings.Join(names, "|") + `)\b`)
}

// TestLibrariesNameNoFlag: library code (every non-main package) returns
// errors and hints that name no CLI flag or command; the CLI, which
// knows its flags, adds them (cmd/olmcat/internal/report).
func TestLibrariesNameNoFlag(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	named := flagOrCommand()
	for pkg := range modulePackages(t, root) {
		dir := filepath.Join(root, filepath.FromSlash(pkg))
		p, err := build.Default.ImportDir(dir, 0)
		if err != nil || p.Name == "main" || under(pkg, "cmd") {
			continue
		}
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, 0)
			require.NoError(t, err)
			for _, lit := range messageLiterals(f) {
				s, err := strconv.Unquote(lit.Value)
				assert.False(t, err == nil && named.MatchString(s), "%s: names a flag or command: %s", fset.Position(lit.Pos()), lit.Value)
			}
		}
	}
}

// messageLiterals returns the string literals in f that make up an
// error or a hint: the arguments of errors.New and fmt.Errorf, and what
// is assigned to a name, field or key that says hint.
func messageLiterals(f *ast.File) []*ast.BasicLit {
	var out []*ast.BasicLit
	collect := func(n ast.Node) {
		ast.Inspect(n, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				out = append(out, lit)
			}
			return true
		})
	}
	hinty := func(e ast.Expr) bool {
		id, ok := e.(*ast.Ident)
		return ok && strings.Contains(strings.ToLower(id.Name), "hint")
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "errors" && sel.Sel.Name == "New" || id.Name == "fmt" && sel.Sel.Name == "Errorf") {
					for _, a := range n.Args {
						collect(a)
					}
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if hinty(name) && i < len(n.Values) {
					collect(n.Values[i])
				}
			}
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				if hinty(lhs) && i < len(n.Rhs) {
					collect(n.Rhs[i])
				}
			}
		case *ast.KeyValueExpr:
			if hinty(n.Key) {
				collect(n.Value)
			}
		}
		return true
	})
	return out
}

// TestLibrariesNameNoFlagCatches: the check sees what it is meant to see.
func TestLibrariesNameNoFlagCatches(t *testing.T) {
	src := `package p
import ("errors"; "fmt")
var hints = map[string]string{"k": "pass --keep-deprecated"}
func f() error {
	hint := "; store it gzipped (--gzip)"
	_ = fmt.Sprintf("--cache-dir=%s", hint) // a command line, not a message
	_ = T{Hint: "run olmcat migrate"}
	_ = errors.New("x exists (use --force to replace it)")
	return fmt.Errorf("read --ca-file: %w", nil)
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	require.NoError(t, err)
	pattern := flagOrCommand()
	var named []string
	for _, lit := range messageLiterals(f) {
		if pattern.MatchString(lit.Value) {
			named = append(named, lit.Value)
		}
	}
	require.Len(t, named, 5, "the 5 messages (not the command line)")
	require.False(t, pattern.MatchString("olmcat does not follow links"), "a sentence about olmcat is not a command")
}

// binaryRules: packages a build of the binary must not link. client-go's
// typed clientset brings every API group of Kubernetes (most of the
// binary's size; the bundle commands use the dynamic client), and the slim
// build shipped in images and run by the unpack Job has no Kubernetes
// client or API types at all, and no sqlite library or anything above the
// declarative config server (it serves /configs and runs the Job's bundle
// commands).
var binaryRules = []struct {
	tags      string
	forbidden []string
}{
	{tags: "", forbidden: []string{"k8s.io/client-go/kubernetes", "k8s.io/client-go/applyconfigurations"}},
	{tags: "slim", forbidden: []string{"k8s.io/client-go/", "k8s.io/api/", "k8s.io/apimachinery/pkg/runtime",
		"modernc.org/", module + "legacy", module + "migrate", module + "registry/legacyquery", module + "registry/parity",
		module + "declcfg/template", module + "cmd/olmcat/internal/report"}},
}

func TestBinaryDependencies(t *testing.T) {
	for _, rule := range binaryRules {
		out, err := exec.Command("go", "list", "-tags", rule.tags, "-deps", ".").Output()
		require.NoError(t, err, "go list -tags %q -deps", rule.tags)
		for _, pkg := range strings.Fields(string(out)) {
			for _, f := range rule.forbidden {
				assert.False(t, strings.HasPrefix(pkg, f), "the binary built with tags %q links %s (forbidden: %s)", rule.tags, pkg, f)
			}
		}
	}
}

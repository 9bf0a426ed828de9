package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// The test cases of a package's suite: one per blob schema, its
// assertions the package's blobs of that schema.
var validateSchemas = []string{declcfg.SchemaPackage, declcfg.SchemaChannel, declcfg.SchemaBundle, declcfg.SchemaDeprecations}

// loadSuite names the suite of the problems that belong to no package
// (the catalog does not load).
const loadSuite = "(catalog)"

// ValidateJUnit writes validate's outcome as JUnit XML while the catalog
// is checked: one <testsuite> per package, written when the package is
// checked, with one <testcase> per blob schema (assertions: the
// package's blobs of it; olm.deprecations only when present) failing with
// the problems of those blobs, and the upgrade-graph warnings (which do
// not fail) as the suite's output. A catalog that does not load adds a
// suite "(catalog)" whose "load" case fails with the error.
func ValidateJUnit(w io.Writer) ValidateCI {
	return &validateJUnit{j: junitWriter{w: w}}
}

type validateJUnit struct {
	j        junitWriter
	warnings []string // the current package's
	reported int      // problems written with their package
}

func (v *validateJUnit) Start(dir string) { v.j.begin("olmcat validate " + dir) }

func (v *validateJUnit) Warning(p model.Problem) {
	v.warnings = append(v.warnings, "warning: "+p.String())
}

func (v *validateJUnit) Package(pc model.PackageCheck) {
	name := pc.Name
	if name == "" {
		name = "(blobs without a package)"
	}
	s := &junitSuite{Name: name}
	counts := []int{pc.Packages, pc.Channels, pc.Bundles, pc.Deprecations}
	for i, schema := range validateSchemas {
		var msgs []string
		for _, p := range pc.Problems {
			if p.Schema == schema || i == 0 && !isValidateSchema(p.Schema) {
				msgs = append(msgs, p.String())
			}
		}
		if schema == declcfg.SchemaDeprecations && counts[i] == 0 && len(msgs) == 0 {
			continue
		}
		s.Cases = append(s.Cases, problemCase(name, schema, count(counts[i]), msgs))
	}
	v.reported += len(pc.Problems)
	if len(v.warnings) > 0 {
		s.SystemOut = text(strings.Join(v.warnings, "\n") + "\n")
		v.warnings = v.warnings[:0]
	}
	v.j.suite(s)
}

func (v *validateJUnit) Finish(_ string, res Validation) error {
	if len(res.Problems) > v.reported {
		var msgs []string
		for _, p := range res.Problems {
			msgs = append(msgs, p.String())
		}
		v.j.suite(&junitSuite{Name: loadSuite, Cases: []junitCase{problemCase(loadSuite, "load", nil, msgs)}})
	}
	return v.j.end()
}

func isValidateSchema(s string) bool {
	for _, v := range validateSchemas {
		if s == v {
			return true
		}
	}
	return false
}

// problemCase is a test case failing with msgs, if any: the message
// counts them, the text lists the first ones.
func problemCase(suite, name string, assertions *int, msgs []string) junitCase {
	tc := junitCase{Name: name, Classname: suite, Assertions: assertions}
	if len(msgs) == 0 {
		return tc
	}
	shown := msgs[:min(len(msgs), ciDiffsPerCase)]
	tc.Failure = &junitFailure{Message: fmt.Sprintf("%d problem(s)", len(msgs)), Type: "invalid",
		Text: xmlSafe(strings.Join(shown, "\n") + "\n")}
	return tc
}

// ValidateGitHub writes validate's outcome as GitHub Actions workflow
// commands while the catalog is checked: a warning per upgrade-graph
// warning, an error per problem (as each package is checked), each on
// the file and line of its blob under root ("" for no file, e.g. an
// image's), named as under shown (the directory as the runner sees it),
// then one line with the verdict: a notice when valid, an error when not.
func ValidateGitHub(w io.Writer, root, shown string) ValidateCI {
	return &validateGitHub{w: w, root: root, shown: shown}
}

type validateGitHub struct {
	w        io.Writer
	root     string
	shown    string
	reported int
	err      error
	// The places of the last file looked up: a package's problems are
	// mostly in one file.
	file   string
	places []declcfg.Place
}

func (g *validateGitHub) Start(string) {}

func (g *validateGitHub) Warning(p model.Problem) {
	g.write(ghCommand("warning", g.where(p), "validate warning", p.String()))
}

func (g *validateGitHub) Package(pc model.PackageCheck) {
	for _, p := range pc.Problems {
		g.write(ghCommand("error", g.where(p), "validate", p.String()))
	}
	g.reported += len(pc.Problems)
}

func (g *validateGitHub) Finish(dir string, v Validation) error {
	if len(v.Problems) > g.reported {
		// The catalog did not load: its error was found by no package.
		for _, p := range v.Problems {
			g.write(ghCommand("error", g.where(p), "validate", p.String()))
		}
	}
	if v.Valid {
		g.write(ghCommand("notice", ghWhere{}, "validate", validSummary(dir, v)))
	} else {
		g.write(ghCommand("error", ghWhere{}, "validate", fmt.Sprintf("%s: invalid catalog: %d problem(s)", dir, len(v.Problems))))
	}
	return g.err
}

func (g *validateGitHub) write(s string) {
	if g.err == nil {
		_, g.err = io.WriteString(g.w, s)
	}
}

// where is the file and line of a problem's blob ("file#index").
func (g *validateGitHub) where(p model.Problem) ghWhere {
	i := strings.LastIndexByte(p.File, '#')
	if g.root == "" || i < 0 {
		return ghWhere{}
	}
	rel := p.File[:i]
	idx, err := strconv.Atoi(p.File[i+1:])
	if err != nil {
		return ghWhere{}
	}
	if rel != g.file {
		// A file that does not read has no lines to point at: the
		// annotation names the file alone.
		g.file = rel
		g.places, _ = declcfg.FilePlaces(g.root, rel)
	}
	at := ghWhere{file: ghPath(g.shown, rel)}
	if idx < len(g.places) {
		at.line = g.places[idx].Line
	}
	return at
}

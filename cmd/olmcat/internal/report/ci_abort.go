package report

import (
	"strings"

	"github.com/operator-catalog/olmcat/registry/parity"
)

// Aborter is a streamed CI report (JUnit, GitHub) that can end with the
// error that stopped its run: a side that does not load, a catalog that
// is not there. The CI job then still reads a well-formed report that
// says why, instead of an empty or cut file.
type Aborter interface {
	// Abort ends the report with msg as an error; name is the JUnit
	// document's name when nothing was written yet.
	Abort(name, msg string) error
}

// ParityCI is a streamed CI report of a parity check.
type ParityCI interface {
	parity.PackageReport
	Aborter
}

// ValidateCI is a streamed CI report of validate.
type ValidateCI interface {
	ValidateWriter
	Aborter
}

// errorSuite names the JUnit suite of the error that stopped a run.
const errorSuite = "(error)"

// abort ends the document with a suite whose one case errs with msg,
// beginning the document as name first if nothing was written yet.
func (j *junitWriter) abort(name, msg string) error {
	if j.ended {
		return j.err
	}
	if !j.begun {
		j.begin(name)
	}
	first, _, _ := strings.Cut(msg, "\n")
	j.suite(&junitSuite{Name: errorSuite, Cases: []junitCase{{
		Name: "run", Classname: errorSuite,
		Error: &junitFailure{Message: first, Type: "error", Text: xmlSafe(msg + "\n")},
	}}})
	return j.end()
}

// Abort implements Aborter.
func (p *parityJUnit) Abort(name, msg string) error { return p.j.abort(name, msg) }

// Abort implements Aborter.
func (v *validateJUnit) Abort(name, msg string) error { return v.j.abort(name, msg) }

// Abort implements Aborter.
func (g *parityGitHub) Abort(_, msg string) error {
	g.write(ghCommand("error", ghWhere{}, "parity", msg))
	return g.err
}

// Abort implements Aborter.
func (g *validateGitHub) Abort(_, msg string) error {
	g.write(ghCommand("error", ghWhere{}, "validate", msg))
	return g.err
}

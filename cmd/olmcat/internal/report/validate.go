package report

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/declcfg/model"
)

// ValidateWriter writes what olmcat validate finds, as the run goes:
// Start, the warnings and each package's outcome as the package is
// checked (none is held), then the verdict.
type ValidateWriter interface {
	Start(dir string)
	Warning(p model.Problem)
	Package(pc model.PackageCheck)
	Finish(dir string, v Validation) error
}

// Validation is the part of validate's result known at the end.
type Validation struct {
	Valid    bool            `json:"valid"`
	Packages int             `json:"packages"`
	Channels int             `json:"channels"`
	Bundles  int             `json:"bundles"`
	Problems []model.Problem `json:"problems"`
}

// ValidationOf is the verdict of a model.ValidateDir run: its counts,
// and as problems those of a *model.ValidationError, or, when the catalog
// could not be read at all, the error as one problem.
func ValidationOf(res model.DirValidation, err error) Validation {
	v := Validation{Valid: err == nil, Packages: res.Packages, Channels: res.Channels, Bundles: res.Bundles, Problems: []model.Problem{}}
	var ve *model.ValidationError
	switch {
	case errors.As(err, &ve):
		v.Problems = ve.Problems
	case err != nil:
		v.Problems = []model.Problem{{Message: err.Error()}}
	}
	return v
}

// ValidateText is the text output: warnings on warn, then the summary of
// a valid catalog on warn too (out stays empty, as opm's), or one
// problem a line on out.
func ValidateText(out, warn io.Writer) ValidateWriter {
	return &validateText{out: out, warn: bufio.NewWriter(warn)}
}

type validateText struct {
	out  io.Writer
	warn *bufio.Writer
}

func (t *validateText) Start(string)               {}
func (t *validateText) Package(model.PackageCheck) {}

func (t *validateText) Warning(p model.Problem) {
	t.warn.WriteString("warning: " + p.String() + "\n")
}

func (t *validateText) Finish(dir string, v Validation) error {
	if v.Valid {
		// On warn, as opm: nothing on stdout when the catalog is valid.
		fmt.Fprintln(t.warn, validSummary(dir, v))
		return t.warn.Flush()
	}
	if err := t.warn.Flush(); err != nil {
		return err
	}
	for _, p := range v.Problems {
		if _, err := fmt.Fprintln(t.out, p.String()); err != nil {
			return err
		}
	}
	return nil
}

// validSummary is the text output of a valid catalog.
func validSummary(dir string, v Validation) string {
	return fmt.Sprintf("OK: %s: %d packages, %d channels, %d bundles", dir, v.Packages, v.Channels, v.Bundles)
}

// ValidateJSON is the -o json report, for machines: one object indented
// by two spaces, written as the run goes, so "dir" and "warnings" (the
// upgrade-graph findings that do not fail validation, as olmcat graph
// draws them) come first, then "valid", the counts and "problems".
func ValidateJSON(w io.Writer) ValidateWriter {
	return &validateJSON{w: bufio.NewWriter(w)}
}

type validateJSON struct {
	w        *bufio.Writer
	warnings int
	err      error // the first failed encoding; writes are checked at Flush
}

func (j *validateJSON) Package(model.PackageCheck) {}

func (j *validateJSON) Start(dir string) {
	d, err := json.Marshal(dir)
	j.keep(err)
	fmt.Fprintf(j.w, "{\n  \"dir\": %s,\n  \"warnings\": [", d)
}

func (j *validateJSON) Warning(p model.Problem) {
	b, err := json.MarshalIndent(p, "    ", "  ")
	j.keep(err)
	if j.warnings > 0 {
		j.w.WriteByte(',')
	}
	j.warnings++
	j.w.WriteString("\n    ")
	j.w.Write(b)
}

func (j *validateJSON) Finish(_ string, v Validation) error {
	if j.warnings > 0 {
		j.w.WriteString("\n  ")
	}
	// The verdict's fields continue the object: its own "{" is dropped.
	b, err := json.MarshalIndent(v, "", "  ")
	j.keep(err)
	j.w.WriteString("],")
	j.w.Write(b[1:])
	j.w.WriteByte('\n')
	if j.err != nil {
		return j.err
	}
	return j.w.Flush()
}

func (j *validateJSON) keep(err error) {
	if j.err == nil {
		j.err = err
	}
}

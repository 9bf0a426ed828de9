package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/declcfg"
)

// validateReporter prints what validate finds: the warnings as each
// package is checked (none is held), then the verdict.
type validateReporter interface {
	start(dir string)
	warning(p declcfg.Problem)
	finish(dir string, v validateVerdict) error
}

// validateVerdict is the part of validate's result known at the end.
type validateVerdict struct {
	Valid    bool              `json:"valid"`
	Packages int               `json:"packages"`
	Channels int               `json:"channels"`
	Bundles  int               `json:"bundles"`
	Problems []declcfg.Problem `json:"problems"`
}

// validateText is the text output: warnings on stderr, then the summary
// of a valid catalog or one problem a line on stdout.
type validateText struct {
	out  io.Writer
	warn *bufio.Writer
}

func (t *validateText) start(string) {}

func (t *validateText) warning(p declcfg.Problem) {
	t.warn.WriteString("warning: " + p.String() + "\n")
}

func (t *validateText) finish(dir string, v validateVerdict) error {
	if err := t.warn.Flush(); err != nil {
		return err
	}
	if v.Valid {
		_, err := fmt.Fprintf(t.out, "OK: %s: %d packages, %d channels, %d bundles\n", dir, v.Packages, v.Channels, v.Bundles)
		return err
	}
	for _, p := range v.Problems {
		if _, err := fmt.Fprintln(t.out, p.String()); err != nil {
			return err
		}
	}
	return nil
}

// validateJSON is the -o json report, for machines: one object indented
// by two spaces, written as the run goes, so "dir" and "warnings" (the
// upgrade-graph findings that do not fail validation, as olmcat graph
// draws them) come first, then "valid", the counts and "problems".
type validateJSON struct {
	w        *bufio.Writer
	warnings int
	err      error // the first failed encoding; writes are checked at Flush
}

func (j *validateJSON) start(dir string) {
	d, err := json.Marshal(dir)
	j.keep(err)
	fmt.Fprintf(j.w, "{\n  \"dir\": %s,\n  \"warnings\": [", d)
}

func (j *validateJSON) warning(p declcfg.Problem) {
	b, err := json.MarshalIndent(p, "    ", "  ")
	j.keep(err)
	if j.warnings > 0 {
		j.w.WriteByte(',')
	}
	j.warnings++
	j.w.WriteString("\n    ")
	j.w.Write(b)
}

func (j *validateJSON) finish(_ string, v validateVerdict) error {
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

package model

import (
	"fmt"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// Problem is one validation finding, naming the blob it is about.
type Problem struct {
	// File is the blob's origin ("path#index"), empty for built blobs.
	File string `json:"file,omitempty"`
	// Schema is the schema of the blob the problem is about.
	Schema string `json:"schema,omitempty"`
	// Package is the blob's package (the name, for olm.package blobs).
	Package string `json:"package,omitempty"`
	// Name is the blob's name (channel or bundle name), if any.
	Name string `json:"name,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`

	origin declcfg.Origin // for ordering the report by file and position
}

// String renders the problem as "file: schema package/name: message",
// leaving out the parts that are empty; names that could forge output
// are quoted (internal/quote).
func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(quote.Name(p.File))
		b.WriteString(": ")
	}
	subject := quote.Name(p.Package)
	switch {
	case subject != "" && p.Name != "":
		subject += "/" + quote.Name(p.Name)
	case subject == "":
		subject = quote.Name(p.Name)
	}
	if p.Schema != "" {
		b.WriteString(p.Schema)
		if subject != "" {
			b.WriteString(" ")
		}
	}
	if subject != "" {
		b.WriteString(subject)
	}
	if p.Schema != "" || subject != "" {
		b.WriteString(": ")
	}
	b.WriteString(p.Message)
	return b.String()
}

// ValidationError lists every problem found in one validation run.
type ValidationError struct {
	Problems []Problem

	// nested are the model-level errors (one *Error per package)
	// Problems was partly derived from, for errors.Is and errors.As.
	nested []error
}

// Unwrap returns the nested model-level errors: one *Error per
// package whose model checks failed (blob-level problems found while
// linking the model are only in Problems).
func (e *ValidationError) Unwrap() []error { return e.nested }

// Error lists all problems, one per line.
func (e *ValidationError) Error() string {
	lines := make([]string, 0, len(e.Problems)+1)
	n := len(e.Problems)
	if n == 1 {
		lines = append(lines, "invalid catalog: 1 problem:")
	} else {
		lines = append(lines, fmt.Sprintf("invalid catalog: %d problems:", n))
	}
	for _, p := range e.Problems {
		lines = append(lines, "  "+p.String())
	}
	return strings.Join(lines, "\n")
}

// problems collects findings.
type problems []Problem

func (ps *problems) add(o declcfg.Origin, schema, pkg, name, format string, args ...any) {
	*ps = append(*ps, Problem{File: o.String(), Schema: schema, Package: pkg, Name: name, Message: fmt.Sprintf(format, args...), origin: o})
}

// sortByOrigin orders the report by file and position, so that all
// problems of a blob are together; the stable sort keeps the rule order
// within a blob.
func (ps problems) sortByOrigin() {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].origin, ps[j].origin
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Index < b.Index
	})
}

func originOrMemory(o declcfg.Origin) string {
	if s := o.String(); s != "" {
		return s
	}
	return "an in-memory blob"
}

package model

import (
	"fmt"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Error is the validation error of one model element: a package, a
// channel of it, or a bundle of that channel. Errs holds, in report order,
// the element's own findings (each a *Problem) and the *Error of
// every child element that has findings, so that errors.Is and errors.As
// reach a bundle's finding through its channel and package.
type Error struct {
	// Schema says what the element is: SchemaPackage, SchemaChannel or
	// SchemaBundle.
	Schema string
	// Package is the element's package.
	Package string
	// Name is the channel or bundle name (empty for a package).
	Name string
	// Errs are the element's findings and its children's errors.
	Errs []error
}

// Error names the element and lists every finding under it, one per line.
func (e *Error) Error() string {
	subject := e.Package
	if e.Name != "" {
		subject += "/" + e.Name
	}
	ps := flattenErrors(e.Errs)
	lines := make([]string, 0, len(ps)+1)
	lines = append(lines, fmt.Sprintf("%s %s: %d problem%s:", e.Schema, subject, len(ps), plural(len(ps))))
	for _, p := range ps {
		lines = append(lines, "  "+p.String())
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the element's findings and its children's errors.
func (e *Error) Unwrap() []error { return e.Errs }

// Error renders the finding as String does, so that a *Problem can be a
// leaf of a Error.
func (p *Problem) Error() string { return p.String() }

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// modelError returns a *Error holding errs, or nil when there is none
// (a nil error, not a nil *Error, so callers can test err != nil).
func modelError(schema, pkg, name string, errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return &Error{Schema: schema, Package: pkg, Name: name, Errs: errs}
}

// errs turns findings into Error leaves.
func (ps problems) errs() []error {
	out := make([]error, len(ps))
	for i := range ps {
		out[i] = &ps[i]
	}
	return out
}

// flattenErrors is the one place nested validation errors become the flat
// report the CLI prints. A package's findings come in this order: its own
// findings before its channels, every channel's own findings in channel
// order, then the findings of its bundles by bundle name (a bundle is
// checked under the first channel that holds it), then the package's
// remaining findings (duplicate versions, which compare all bundles).
func flattenErrors(errs []error) problems {
	var ps problems
	var bundles []*Error // deferred until the package's channels are done
	flush := func() {
		slices.SortStableFunc(bundles, func(a, b *Error) int { return strings.Compare(a.Name, b.Name) })
		for _, b := range bundles {
			ps = append(ps, flattenErrors(b.Errs)...)
		}
		bundles = nil
	}
	for _, err := range errs {
		switch e := err.(type) {
		case *Problem:
			flush()
			ps = append(ps, *e)
		case *Error:
			if e.Schema != declcfg.SchemaChannel {
				flush()
				ps = append(ps, flattenErrors(e.Errs)...)
				continue
			}
			for _, ce := range e.Errs {
				if be, ok := ce.(*Error); ok {
					bundles = append(bundles, be)
				} else {
					ps = append(ps, flattenErrors([]error{ce})...)
				}
			}
		}
	}
	flush()
	return ps
}

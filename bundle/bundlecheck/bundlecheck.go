// Package bundlecheck validates a registry+v1 bundle directory as opm
// alpha bundle validate and unpack do: the format (manifests/ and
// metadata/, the annotations and dependencies files) and then the content
// (every manifest decoded, its kind allowed, the CSV, the CRDs and the
// metadata of other objects checked, owned CRDs present), plus the
// optional operatorhub and bundle-objects checks. Messages keep opm's
// texts so scripts that match them keep working; where opm never checks
// what it means to (the manifests/metadata annotation values, an empty
// package, the bundle-objects checks, non-CEL constraints) the check is
// made. Validate returns a typed Report; formatting is the caller's.
package bundlecheck

import (
	"io/fs"
	"strings"
)

// Stage names the step a problem was found in (opm prints them as
// "bundle format validation failed" and "bundle content validation
// failed").
type Stage int

const (
	// StageFormat is the layout, annotations and dependencies check.
	StageFormat Stage = iota
	// StageContent is the manifests check, optional validators included.
	StageContent
)

// Optional names an optional validator.
type Optional string

// The optional validators of opm alpha bundle validate.
const (
	// OperatorHub checks the CSV metadata OperatorHub shows (provider,
	// maintainers, links, icon, categories, capabilities, version,
	// minKubeVersion).
	OperatorHub Optional = "operatorhub"
	// BundleObjects checks PodDisruptionBudgets, PriorityClasses and RBAC
	// rules that could harm a cluster.
	BundleObjects Optional = "bundle-objects"
)

// Problem is one finding: the bundle-relative file it is about ("" when
// it is about the bundle as a whole) and opm's message.
type Problem struct {
	File    string
	Message string
}

// Error returns the message.
func (p Problem) Error() string { return p.Message }

// Report is what Validate found. Content is empty when the format failed
// (as in opm, the content is then not looked at).
type Report struct {
	// Format are the problems of the layout and of metadata/.
	Format []Problem
	// Content are the problems of manifests/.
	Content []Problem
	// Warnings do not fail the bundle (a v1beta1 CRD).
	Warnings []Problem
	// MediaType is the media type detected from manifests/ (registry+v1,
	// helm or plain; "" when it could not be detected).
	MediaType string
}

// Failed tells whether the bundle is invalid.
func (r Report) Failed() bool { return len(r.Format) > 0 || len(r.Content) > 0 }

// Stage is the stage that failed (StageFormat when both are empty).
func (r Report) Stage() Stage {
	if len(r.Format) == 0 && len(r.Content) > 0 {
		return StageContent
	}
	return StageFormat
}

// Err is nil for a valid bundle, else an *Error listing the failing
// stage's problems.
func (r Report) Err() error {
	if !r.Failed() {
		return nil
	}
	if r.Stage() == StageFormat {
		return &Error{Stage: StageFormat, Problems: r.Format}
	}
	return &Error{Stage: StageContent, Problems: r.Content}
}

// Error is an invalid bundle: the failing stage and its problems.
type Error struct {
	Stage    Stage
	Problems []Problem
}

// Error is opm's text: "Bundle validation errors: " and the messages
// joined by commas.
func (e *Error) Error() string {
	msgs := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		msgs[i] = p.Message
	}
	return "Bundle validation errors: " + strings.Join(msgs, ",")
}

// Option configures Validate.
type Option func(*options)

type options struct {
	optional map[Optional]bool
}

// WithOptional runs the named optional validators too.
func WithOptional(names ...Optional) Option {
	return func(o *options) {
		for _, n := range names {
			o.optional[n] = true
		}
	}
}

// Validate checks the bundle at the root of fsys (manifests/ and
// metadata/ directories). The format is checked first; the content only
// when the format passed.
func Validate(fsys fs.FS, opts ...Option) Report {
	o := options{optional: map[Optional]bool{}}
	for _, opt := range opts {
		opt(&o)
	}
	var r Report
	checkFormat(fsys, &r)
	if len(r.Format) > 0 {
		return r
	}
	checkContent(fsys, &r, o)
	return r
}

// collector gathers problems for one stage.
type collector struct {
	list *[]Problem
}

func (c collector) add(file, msg string) {
	*c.list = append(*c.list, Problem{File: file, Message: msg})
}

package template

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// Type is a kind of template.
type Type string

// The template types, as opm alpha render-template names them.
const (
	TypeBasic       Type = "basic"
	TypeSemver      Type = "semver"
	TypeSubstitutes Type = "substitutes"
)

// Types lists the template types in opm's order.
var Types = []Type{TypeBasic, TypeSemver, TypeSubstitutes}

// The schema of each template type.
const (
	SchemaBasic       = "olm.template.basic"
	SchemaSemver      = "olm.semver"
	SchemaSubstitutes = "olm.template.substitutes"
)

// Schema is the schema a template of type t carries.
func (t Type) Schema() string {
	switch t {
	case TypeBasic:
		return SchemaBasic
	case TypeSemver:
		return SchemaSemver
	case TypeSubstitutes:
		return SchemaSubstitutes
	}
	return ""
}

// ParseType parses a template type name.
func ParseType(s string) (Type, error) {
	for _, t := range Types {
		if string(t) == s {
			return t, nil
		}
	}
	return "", fmt.Errorf("invalid template type %q, must be one of: [basic semver substitutes]", s)
}

// BundleRenderer turns a bundle reference of a template (an image
// reference, or whatever else the caller accepts) into the olm.bundle blob
// opm render gives for it.
type BundleRenderer func(ctx context.Context, ref string) (*declcfg.Bundle, error)

// Error is a problem with a template, naming where it is: the template
// file, the entry (like "entries[3]" or "stable.bundles[1]", empty for the
// document itself) and the field ("image", "schema", ...).
type Error struct {
	File  string
	Entry string
	Field string
	Err   error
}

// Error renders "<file>: <entry>: <field>: <err>", leaving out the empty
// parts.
func (e *Error) Error() string {
	parts := make([]string, 0, 4)
	for _, p := range []string{e.File, e.Entry, e.Field} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	parts = append(parts, e.Err.Error())
	return strings.Join(parts, ": ")
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Option configures Render.
type Option func(*options)

type options struct {
	file   string
	root   string
	typ    Type
	render BundleRenderer
	limit  int
	keep   keeper
}

// WithFile names the template in errors ("<stdin>" by default).
func WithFile(name string) Option { return func(o *options) { o.file = name } }

// WithRefRoot resolves olm.bundle.object refs of template entries against
// dir (default the current directory).
func WithRefRoot(dir string) Option { return func(o *options) { o.root = dir } }

// WithType renders the template as type t; its schema must then match.
// Without it the type is detected from the schema.
func WithType(t Type) Option { return func(o *options) { o.typ = t } }

// WithBundleRenderer sets how bundle references are rendered. Without it
// a template that names a bundle fails.
func WithBundleRenderer(r BundleRenderer) Option { return func(o *options) { o.render = r } }

// WithConcurrency renders up to n bundle references at once (default 4).
func WithConcurrency(n int) Option { return func(o *options) { o.limit = n } }

func makeOptions(opts []Option) options {
	o := options{file: "<stdin>", root: ".", limit: 4, keep: inMemory{}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.limit < 1 {
		o.limit = 1
	}
	if o.render == nil {
		o.render = func(_ context.Context, ref string) (*declcfg.Bundle, error) {
			return nil, fmt.Errorf("cannot render bundle %q: no bundle renderer", ref)
		}
	}
	return o
}

// Render renders the template in data (JSON or YAML; only the first
// document is read, as opm does) into a declarative config.
func Render(ctx context.Context, data []byte, opts ...Option) (*declcfg.DeclarativeConfig, error) {
	return render(ctx, data, makeOptions(opts))
}

// render is Render with the options made, their keeper deciding what of
// each rendered bundle the config holds.
func render(ctx context.Context, data []byte, o options) (*declcfg.DeclarativeConfig, error) {
	doc, err := firstDocument(data)
	if err != nil {
		return nil, &Error{File: o.file, Err: err}
	}
	schema, err := schemaOf(doc)
	if err != nil {
		return nil, &Error{File: o.file, Err: err}
	}
	t := o.typ
	if t == "" {
		if t = typeOfSchema(schema); t == "" {
			return nil, &Error{File: o.file, Field: "schema", Err: unknownSchema(schema)}
		}
	} else if schema != t.Schema() {
		return nil, &Error{File: o.file, Field: "schema", Err: fmt.Errorf("template has unknown schema (%q), should be %q", schema, t.Schema())}
	}
	switch t {
	case TypeBasic:
		return renderBasic(ctx, doc, o)
	case TypeSemver:
		return renderSemver(ctx, doc, o)
	case TypeSubstitutes:
		return renderSubstitutes(ctx, doc, o)
	}
	return nil, fmt.Errorf("unknown template type %q", t)
}

// Detect returns the type of the template in data from its schema, as
// opm's auto-detection does.
func Detect(data []byte) (Type, error) {
	doc, err := firstDocument(data)
	if err != nil {
		return "", err
	}
	schema, err := schemaOf(doc)
	if err != nil {
		return "", err
	}
	if t := typeOfSchema(schema); t != "" {
		return t, nil
	}
	return "", unknownSchema(schema)
}

func unknownSchema(schema string) error {
	return fmt.Errorf("unknown template schema %q (want %s, %s or %s)", schema, SchemaBasic, SchemaSemver, SchemaSubstitutes)
}

func typeOfSchema(schema string) Type {
	for _, t := range Types {
		if t.Schema() == schema {
			return t
		}
	}
	return ""
}

// errNoSchema is the error of a template without a schema key.
var errNoSchema = errors.New("template input missing required 'schema' field")

// schemaOf reads the schema of a template document.
func schemaOf(doc json.RawMessage) (string, error) {
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(doc, &head); err != nil {
		return "", fmt.Errorf("decode template: %w", err)
	}
	if head.Schema == nil {
		return "", errNoSchema
	}
	return *head.Schema, nil
}

// errStop ends the scan of a template after its first document.
var errStop = errors.New("stop")

// firstDocument returns the first JSON or YAML document of data as JSON.
// A JSON document (the common case, and the large one: a template of
// thousands of bundle images) is returned as the part of data it is, not
// copied.
func firstDocument(data []byte) (json.RawMessage, error) {
	if start := jsonscan.SkipSpace(data, 0); start < len(data) && data[start] == '{' {
		end, err := jsonscan.SkipValue(data, start)
		if doc := data[start:min(end, len(data))]; err == nil && bytes.IndexByte(doc, 0) < 0 && jsonscan.Valid(doc) {
			return doc, nil
		}
	}
	var doc json.RawMessage
	err := declcfg.DecodeStream(bytes.NewReader(data), func(blob json.RawMessage, _ int) error {
		doc = blob
		return errStop
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("decode template: %w", err)
	}
	if doc == nil {
		return nil, errors.New("decode template: the input holds no document")
	}
	return doc, nil
}

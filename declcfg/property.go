package declcfg

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// Well-known property types.
const (
	PropertyPackage         = "olm.package"
	PropertyPackageRequired = "olm.package.required"
	PropertyGVK             = "olm.gvk"
	PropertyGVKRequired     = "olm.gvk.required"
	PropertyBundleObject    = "olm.bundle.object"
	PropertyCSVMetadata     = "olm.csv.metadata"
	PropertyConstraint      = "olm.constraint"
	PropertyLabel           = "olm.label"
	PropertyLabelRequired   = "olm.label.required"
	PropertyDeprecated      = "olm.deprecated"
)

// PackageValue is the value of an olm.package property.
type PackageValue struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitempty"`
}

// PackageRequiredValue is the value of an olm.package.required property.
type PackageRequiredValue struct {
	PackageName  string `json:"packageName"`
	VersionRange string `json:"versionRange"`
}

// GVKValue is the value of olm.gvk and olm.gvk.required properties.
type GVKValue struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// BundleObjectValue is the value of an olm.bundle.object property: either
// inline base64 Data or a Ref path relative to the file holding the blob.
// Exactly one of the two is set.
type BundleObjectValue struct {
	Data []byte `json:"data,omitempty"`
	Ref  string `json:"ref,omitempty"`
}

// LabelValue is the value of olm.label and olm.label.required properties.
type LabelValue struct {
	Label string `json:"label"`
}

// ConstraintValue is the value of an olm.constraint property. Only the
// failure message is typed; the constraint itself (cel, all, any, not,
// gvk, package, ...) is kept verbatim in Raw.
type ConstraintValue struct {
	FailureMessage string          `json:"failureMessage,omitempty"`
	Raw            json.RawMessage `json:"-"`
}

// CSVMetadataValue is the value of an olm.csv.metadata property.
type CSVMetadataValue = manifest.CSVMetadata

// NewProperty encodes v as the value of a property of type typ. The value
// is compact JSON with HTML characters left unescaped.
func NewProperty(typ string, v any) (Property, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return Property{}, fmt.Errorf("encode %s property: %w", typ, err)
	}
	return Property{Type: typ, Value: json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n"))}, nil
}

// MustProperty is NewProperty for values that cannot fail to encode (the
// typed values of this package); it panics otherwise.
func MustProperty(typ string, v any) Property {
	p, err := NewProperty(typ, v)
	if err != nil {
		panic(err)
	}
	return p
}

// ParseValue decodes the property's value into v (a pointer).
func (p Property) ParseValue(v any) error {
	if err := json.Unmarshal(p.Value, v); err != nil {
		return p.valueError(err)
	}
	return nil
}

// valueError words err, the failure to decode p's value, as ParseValue
// does: with the type and (the start of) the value.
func (p Property) valueError(err error) error {
	return fmt.Errorf("parse %s property value %s: %w", p.Type, truncate(p.Value, 120), err)
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "..."
}

// Validate checks that the property's value is JSON and, for the
// well-known types, that the type's parser (properties.go) accepts it.
func (p Property) Validate() error {
	var err error
	switch p.Type {
	case PropertyPackage:
		_, err = ParsePackageValue(p.Value)
	case PropertyPackageRequired:
		_, err = ParsePackageRequiredValue(p.Value)
	case PropertyGVK, PropertyGVKRequired:
		_, err = ParseGVKValue(p.Value)
	case PropertyLabel, PropertyLabelRequired:
		_, err = ParseLabelValue(p.Value)
	case PropertyBundleObject:
		if text := inlineBase64(p.Value); text != nil && validStdBase64(text) {
			return nil // the common inline form: no need to decode the manifest again
		}
		// encoding/json, not parseBundleObject: the one-pass decoder
		// skips what base64 skips (raw newlines), which JSON refuses.
		err = json.Unmarshal(p.Value, &BundleObjectValue{})
	case PropertyCSVMetadata:
		_, err = ParseCSVMetadataValue(p.Value)
	case PropertyConstraint:
		_, err = ParseConstraintValue(p.Value)
	default:
		if len(p.Value) == 0 || !json.Valid(p.Value) {
			return p.invalidJSON()
		}
		return nil
	}
	// The parsers check the syntax as they go; only on failure is it
	// worth telling bad JSON from a schema mismatch.
	if err != nil {
		if len(p.Value) == 0 || !json.Valid(p.Value) {
			return p.invalidJSON()
		}
		return fmt.Errorf("value does not match the %s schema: %v", p.Type, err)
	}
	return nil
}

func (p Property) invalidJSON() error {
	return fmt.Errorf("value is not valid JSON: %s", truncate(p.Value, 60))
}

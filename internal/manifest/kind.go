package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// Kinds the project looks for among a bundle's objects.
const (
	KindCSV = "ClusterServiceVersion"
	KindCRD = "CustomResourceDefinition"
)

// TypeMeta is an object's apiVersion and kind.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Identify returns the apiVersion and kind of one object given as JSON or
// as a single YAML document.
func Identify(data []byte) (TypeMeta, error) {
	js := data
	if !jsonscan.Valid(data) {
		var err error
		if js, err = yaml.YAMLToJSON(data); err != nil {
			return TypeMeta{}, fmt.Errorf("object is neither JSON nor YAML: %w", err)
		}
	}
	var tm TypeMeta
	if err := json.Unmarshal(js, &tm); err != nil {
		return TypeMeta{}, fmt.Errorf("object is not a JSON object: %w", err)
	}
	return tm, nil
}

var (
	errFallback = errors.New("decode needed")
	kindKey     = []byte("kind")
)

// Kind returns the kind of the JSON object obj as encoding/json decodes
// it into a struct: the key matched case-insensitively, the last one
// winning, "" when absent. Only the top level is scanned; a kind that is
// no plain string (escapes, null, a number), a key that could fold to
// "kind" through Unicode and malformed input are left to encoding/json,
// whose error is returned. The grammar of the rest is not checked.
func Kind(obj []byte) (string, error) {
	var k kindScan
	if err := jsonscan.ObjectFields(obj, k.field); err != nil {
		return decodeKind(obj)
	}
	return string(k.kind), nil
}

// ValidKind is jsonscan.Valid and Kind in one pass over obj: valid says
// whether obj is valid JSON; kind and err are what Kind returns, and mean
// something only when obj is valid.
func ValidKind(obj []byte) (kind string, valid bool, err error) {
	var k kindScan
	valid, err = jsonscan.ValidFields(obj, k.field)
	if err == nil {
		return string(k.kind), valid, nil
	}
	// Not an object, or a kind only encoding/json reads.
	if !jsonscan.Valid(obj) {
		return "", false, nil
	}
	kind, err = decodeKind(obj)
	return kind, true, err
}

// kindScan finds the kind among an object's top-level fields.
type kindScan struct{ kind []byte }

// field notes a "kind" field's plain string value; keys and values only
// encoding/json reads right are errFallback.
func (s *kindScan) field(k, v []byte) error {
	if len(k) != len(kindKey) {
		if len(k) < 8 && bytes.IndexFunc(k, func(r rune) bool { return r >= 0x80 }) >= 0 {
			return errFallback
		}
		return nil
	}
	if !bytes.EqualFold(k, kindKey) {
		return nil
	}
	str, ok := jsonscan.PlainString(v)
	if !ok {
		return errFallback
	}
	s.kind = str
	return nil
}

// decodeKind is Kind by encoding/json.
func decodeKind(obj []byte) (string, error) {
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(obj, &head); err != nil {
		return "", err
	}
	return head.Kind, nil
}

// csvMarker is what a CSV's kind value must contain, byte for byte, unless
// the object uses escapes.
var csvMarker = []byte(KindCSV)

// IsCSV reports whether obj is a valid JSON object of kind
// ClusterServiceVersion.
func IsCSV(obj []byte) bool {
	// An object that contains neither the kind's name nor a backslash (an
	// escape could spell it) cannot be one: most objects stop here.
	if !bytes.Contains(obj, csvMarker) && bytes.IndexByte(obj, '\\') < 0 {
		return false
	}
	k, err := Kind(obj)
	return err == nil && k == KindCSV && jsonscan.Valid(obj)
}

// FindCSV returns the index of the first object IsCSV accepts, -1 when
// none is.
func FindCSV(objects [][]byte) int {
	for i, o := range objects {
		if IsCSV(o) {
			return i
		}
	}
	return -1
}

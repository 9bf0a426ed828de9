package manifest

import (
	"bytes"
	"encoding/json"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// Head is what names a Kubernetes object: apiVersion, kind and
// metadata.name.
type Head struct {
	APIVersion string
	Kind       string
	Name       string
}

// ReadHead reads obj's Head as encoding/json decodes it; for an object it
// cannot decode, what encoding/json filled in before failing (a
// non-conforming object still gets a, less telling, name). The common
// case (valid JSON, exact key names, plain strings) is read from the top
// level and metadata's without decoding the manifest.
func ReadHead(obj []byte) Head {
	if h, ok := plainHead(obj); ok {
		return h
	}
	var doc headDoc
	_ = json.Unmarshal(obj, &doc)
	return doc.head()
}

// headDoc is the JSON shape of a Head.
type headDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
}

func (d headDoc) head() Head {
	return Head{APIVersion: d.APIVersion, Kind: d.Kind, Name: d.Metadata.Name}
}

var (
	keyAPIVersion = []byte("apiVersion")
	keyKind       = []byte("kind")
	keyMetadata   = []byte("metadata")
	keyName       = []byte("name")
)

// plainHead is ReadHead's fast path. ok is false when encoding/json might
// decode something else: obj is not valid JSON, a key differs from a
// field name only in case, or a field is not a string without escapes
// (metadata: not an object).
func plainHead(obj []byte) (h Head, ok bool) {
	if !jsonscan.Valid(obj) {
		return Head{}, false
	}
	err := jsonscan.ObjectFields(obj, func(key, val []byte) error {
		var dst *string
		switch {
		case bytes.Equal(key, keyAPIVersion):
			dst = &h.APIVersion
		case bytes.Equal(key, keyKind):
			dst = &h.Kind
		case bytes.Equal(key, keyMetadata):
			return plainName(val, &h.Name)
		case bytes.EqualFold(key, keyAPIVersion), bytes.EqualFold(key, keyKind), bytes.EqualFold(key, keyMetadata):
			return errFallback
		default:
			return nil
		}
		return plainInto(dst, val)
	})
	return h, err == nil
}

func plainName(metadata []byte, dst *string) error {
	if len(metadata) == 0 || metadata[0] != '{' {
		return errFallback
	}
	return jsonscan.ObjectFields(metadata, func(key, val []byte) error {
		switch {
		case bytes.Equal(key, keyName):
			return plainInto(dst, val)
		case bytes.EqualFold(key, keyName):
			return errFallback
		}
		return nil
	})
}

func plainInto(dst *string, val []byte) error {
	s, ok := jsonscan.PlainString(val)
	if !ok {
		return errFallback
	}
	*dst = string(s)
	return nil
}

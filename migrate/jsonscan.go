package migrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// This file holds a minimal JSON walker used on the hot path: bundle
// manifests are large (a CSV is typically 10-20 KB) and the conversion
// needs a handful of small fields from them, so instead of decoding whole
// documents it skips over everything else. The input is validated once
// (json.Valid) by the callers that need it; the walker itself only has to
// find value boundaries.

var errScan = errors.New("malformed JSON")

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index just past the string starting at b[i] == '"'.
// It jumps from quote to quote (bytes.IndexByte is vectorised) and treats
// a quote as the end when an even number of backslashes precedes it.
func skipString(b []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return 0, errScan
		}
		i += j
		n := 0
		for k := i - 1; k >= 0 && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1, nil
		}
		i++
	}
}

// structural marks the bytes skipValue has to look at inside containers.
var structural = [256]bool{'"': true, '{': true, '}': true, '[': true, ']': true}

// skipValue returns the index just past the value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	i = skipSpace(b, i)
	if i >= len(b) {
		return 0, errScan
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			if !structural[b[i]] {
				i++
				continue
			}
			switch b[i] {
			case '"':
				var err error
				if i, err = skipString(b, i); err != nil {
					return 0, err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, errScan
	default:
		for i < len(b) {
			switch b[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return i, nil
			}
			i++
		}
		return i, nil
	}
}

// objectFields calls fn with each key (raw, without quotes; keys with
// escapes are passed as written) and the raw value of the JSON object b.
// fn returns false to stop.
func objectFields(b []byte, fn func(key, value []byte) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return errScan
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return errScan
		}
		end, err := skipString(b, i)
		if err != nil {
			return err
		}
		key := b[i+1 : end-1]
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return errScan
		}
		vs := skipSpace(b, i+1)
		ve, err := skipValue(b, vs)
		if err != nil {
			return err
		}
		if !fn(key, b[vs:ve]) {
			return nil
		}
		i = skipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == '}' {
			return nil
		}
		return errScan
	}
	return errScan
}

// arrayElems calls fn with each raw element of the JSON array b; a null
// or non-array value has no elements.
func arrayElems(b []byte, fn func(elem []byte)) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return nil
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return nil
	}
	for i < len(b) {
		e, err := skipValue(b, i)
		if err != nil {
			return err
		}
		fn(b[i:e])
		i = skipSpace(b, e)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
			continue
		}
		if i < len(b) && b[i] == ']' {
			return nil
		}
		return errScan
	}
	return errScan
}

// field returns the raw value of key in the JSON object b, nil if absent.
func field(b []byte, key string) []byte {
	var out []byte
	_ = objectFields(b, func(k, v []byte) bool {
		if string(k) == key {
			out = v
			return false
		}
		return true
	})
	return out
}

// fastKind returns the top-level "kind" string of a JSON object.
func fastKind(obj []byte) (string, error) {
	var kind string
	var derr error
	err := objectFields(obj, func(k, v []byte) bool {
		if string(k) != "kind" {
			return true
		}
		if len(v) >= 2 && v[0] == '"' && bytes.IndexByte(v[1:len(v)-1], '\\') < 0 {
			kind = string(v[1 : len(v)-1])
		} else {
			derr = json.Unmarshal(v, &kind)
		}
		return false
	})
	if err != nil {
		return "", err
	}
	return kind, derr
}

// jsonString decodes a raw JSON string value; anything else is "".
func jsonString(v []byte) string {
	if len(v) < 2 || v[0] != '"' {
		return ""
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return ""
	}
	return s
}

// csvImages is what the related-image conversion needs from a CSV.
type csvImages struct {
	related    []declcfgRelatedImage
	containers map[string]string
}

type declcfgRelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

// scanCSVImages extracts spec.relatedImages and the deployment container
// images with their names from CSV JSON, decoding only those parts.
func scanCSVImages(csv []byte) (*csvImages, error) {
	out := &csvImages{containers: map[string]string{}}
	spec := field(csv, "spec")
	if spec == nil {
		return out, nil
	}
	var derr error
	err := objectFields(spec, func(k, v []byte) bool {
		switch string(k) {
		case "relatedImages":
			if err := json.Unmarshal(v, &out.related); err != nil {
				derr = fmt.Errorf("spec.relatedImages: %w", err)
				return false
			}
		case "install":
			deps := field(field(v, "spec"), "deployments")
			derr = arrayElems(deps, func(d []byte) {
				pod := field(field(field(d, "spec"), "template"), "spec")
				for _, key := range []string{"initContainers", "containers"} {
					derr = arrayElems(field(pod, key), func(ct []byte) {
						var name, image string
						_ = objectFields(ct, func(k, v []byte) bool {
							switch string(k) {
							case "name":
								name = jsonString(v)
							case "image":
								image = jsonString(v)
							}
							return true
						})
						if _, ok := out.containers[image]; !ok && image != "" && name != "" {
							out.containers[image] = name
						}
					})
					if derr != nil {
						return
					}
				}
			})
		}
		return derr == nil
	})
	if err != nil {
		return nil, err
	}
	return out, derr
}

// csvPackageMeta is what the olm.package blob takes from a CSV.
type csvPackageMeta struct {
	description string
	icon        []csvIcon
}

type csvIcon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

// scanCSVPackageMeta extracts spec.description and spec.icon from CSV JSON.
func scanCSVPackageMeta(csv []byte) (*csvPackageMeta, error) {
	if !validJSON(csv) {
		return nil, errScan
	}
	out := &csvPackageMeta{}
	var derr error
	err := objectFields(field(csv, "spec"), func(k, v []byte) bool {
		switch string(k) {
		case "description":
			derr = json.Unmarshal(v, &out.description)
		case "icon":
			derr = json.Unmarshal(v, &out.icon)
		}
		return derr == nil
	})
	if err != nil && field(csv, "spec") != nil {
		return nil, err
	}
	return out, derr
}

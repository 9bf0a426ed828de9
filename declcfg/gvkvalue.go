package declcfg

import (
	"encoding/json"
	"errors"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// ParseGVKValue decodes an olm.gvk or olm.gvk.required value: the same
// value and error as json.Unmarshal into a GVKValue. The form opm writes,
// an object whose keys are exactly group, kind and version with plain
// string values, is read by a scan; anything else (another key, which
// could fold onto one of these, an escape, null, a number, malformed
// input) is left to encoding/json, so the result and the error are
// always what it gives.
func ParseGVKValue(value []byte) (GVKValue, error) {
	var v GVKValue
	end, err := jsonscan.ObjectFieldsAt(value, 0, func(k, val []byte) error {
		var dst *string
		switch string(k) {
		case "group":
			dst = &v.Group
		case "kind":
			dst = &v.Kind
		case "version":
			dst = &v.Version
		default:
			return errSlowGVK
		}
		s, ok := jsonscan.PlainString(val)
		if !ok {
			return errSlowGVK
		}
		*dst = string(s) // a repeated key: the last one wins, as in encoding/json
		return nil
	})
	if err == nil && jsonscan.SkipSpace(value, end) == len(value) {
		return v, nil
	}
	v = GVKValue{}
	err = json.Unmarshal(value, &v)
	return v, err
}

// errSlowGVK sends ParseGVKValue to encoding/json.
var errSlowGVK = errors.New("decode needed")

package migrate

import (
	"encoding/json"
	"errors"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// decodeGVK is json.Unmarshal of an olm.gvk value into a GVKValue. The
// form opm writes, an object whose keys are exactly group, kind and
// version with plain string values, is read by a scan; anything else
// (another key, which could fold onto one of these, an escape, null, a
// number, malformed input) is left to encoding/json, so the result and
// the error are always what it gives.
func decodeGVK(value string) (declcfg.GVKValue, error) {
	b := []byte(value)
	var v declcfg.GVKValue
	end, err := jsonscan.ObjectFieldsAt(b, 0, func(k, val []byte) error {
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
	if err == nil && jsonscan.SkipSpace(b, end) == len(b) {
		return v, nil
	}
	v = declcfg.GVKValue{}
	err = json.Unmarshal(b, &v)
	return v, err
}

// errSlowGVK sends decodeGVK to encoding/json.
var errSlowGVK = errors.New("decode needed")

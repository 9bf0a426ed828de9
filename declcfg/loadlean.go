package declcfg

import "encoding/json"

// WithLeanBundles loads bundles without their manifests: every
// olm.bundle.object is read and checked exactly as without the option
// (refs resolved, data decoded, the object parsed as JSON or YAML), so a
// catalog fails with the same error, but the object is not kept. Its
// property's value becomes {"data":""} (a valid inline object, so the
// property checks of model.FromDeclcfg pass as they did on the real value),
// Bundle.Objects holds one empty string per object (their count is what
// the model rules look at) and Bundle.CsvJSON stays empty.
//
// It is for callers that keep only a catalog's metadata in memory and
// read a bundle's manifests again, from its blob (Origin), when they need
// them; the properties, images and names are decoded as usual.
func WithLeanBundles() LoadOption {
	return func(o *loadOptions) { o.lean = true }
}

// leanObjectValue stands in for an olm.bundle.object value that was
// checked and dropped. It is shared: no caller modifies property values.
var leanObjectValue = json.RawMessage(`{"data":""}`)

// ownValues copies every property value into memory of its own (the
// plain bundle decoder leaves them pointing into the blob), except the
// shared lean stand-in.
func ownValues(props []Property) {
	for i := range props {
		if v := props[i].Value; len(v) > 0 && &v[0] != &leanObjectValue[0] {
			props[i].Value = append(json.RawMessage(nil), v...)
		}
	}
}

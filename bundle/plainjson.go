package bundle

import "github.com/operator-catalog/olmcat/internal/yamljson"

// plainJSONObject is canonicalObject of a manifest written as plain JSON
// (bundle images built by tools often are), decoded as JSON rather than
// parsed as YAML and converted: the same bytes, several times faster. ok
// is false, and canonicalObject parses data as YAML, unless data is a
// JSON object that YAML reads as the same document and whose kind is a
// string. Its numbers must be integers (yamljson.Integers): the output is
// the JSON that YAML's reading re-encodes to, where 1.0 is 1 and 1e3 is
// 1000.
func plainJSONObject(data []byte) (js []byte, ok bool) {
	if !yamljson.ReadsAsJSON(data, yamljson.Integers) {
		return nil, false
	}
	js, err := reencodeObject(data)
	return js, err == nil
}

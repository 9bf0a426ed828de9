package bundle

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"
)

// canonicalCases are manifests whose canonical form is easy to get
// wrong: floats and large numbers as YAML resolves them, HTML and
// control characters, line separators, !!binary bytes that are not
// UTF-8 (json.Marshal writes them as \ufffd), a valid U+FFFD, duplicate
// keys, and what is not an object with a string kind.
var canonicalCases = []string{
	`{"kind":"A","a":1.0,"b":1e3,"c":-0,"d":18446744073709551616,"e":0.1}`,
	"kind: A\na: 1.50\nb: 0x1F\nc: 1_000\nd: 1e400\n", "kind: A\nd: .inf\n",
	"kind: A\nb: !!binary gIA=\n",
	"kind: A\nb: !!binary 77+9\n",
	"kind: A\nb: \"\\ufffd and \\\\ufffd\"\n",
	"kind: A\ns: \"<a> & \\u2028 \\x01 \\x7f \\t\"\n",
	`{"kind":"A","x":{"k":1,"k":2}}`,
	"kind: A\n1: one\ntrue: yes\n",
	`{"kind":5}`, `{"Kind":"A"}`, `{}`, `null`, `[{"kind":"A"}]`, `"kind"`, "kind: [",
}

// TestCanonicalObjectAsReencoded: canonicalObject gives what decoding
// YAMLToJSON's output and encoding it again gives (what it did before
// it kept that output as it is), and fails where that fails, on every
// fixture bundle's manifests and on canonicalCases.
func TestCanonicalObjectAsReencoded(t *testing.T) {
	files, err := filepath.Glob("../fixtures/bundles/*/*/manifests/*")
	require.NoError(t, err)
	more, err := filepath.Glob("../fixtures/bundles/*/*/*/manifests/*")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range append(files, more...) {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // a directory
		}
		checkCanonical(t, data)
	}
	for _, c := range canonicalCases {
		checkCanonical(t, []byte(c))
	}
}

func FuzzCanonicalObject(f *testing.F) {
	for _, c := range canonicalCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkCanonical(t, data)
	})
}

// checkCanonical: what canonicalObject keeps of YAMLToJSON's output is
// what decoding it and encoding it again gives (YAMLToJSON itself is
// not deterministic: keys that differ in YAML and not as JSON strings,
// 0 and "0", collide in a random order).
func checkCanonical(t *testing.T, data []byte) {
	t.Helper()
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		return
	}
	got, err := marshaledObject(js)
	want, werr := reencodeObject(js)
	if werr != nil {
		require.Error(t, err, "%q", data)
		assert.Equal(t, werr.Error(), err.Error(), "%q", data)
		return
	}
	require.NoError(t, err, "%q", data)
	assert.Equal(t, string(want), string(got), "%q", data)
}

package manifest

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

var kindCases = []string{
	`{"kind":"CSV"}`, `{"a":{"kind":"x"},"kind":"K"}`, `{"Kind":"A","kind":"B"}`, `{"kind":"A","KIND":"B"}`,
	`{"kind":"a\"b"}`, `{"kind":5}`, `{"kind":null}`, `{}`, `[1]`, `{"kind":"ü"}`, ` {"kind" : "S" } `,
	`{"\u212aind":"kelvin"}`, `{"ki\u006ed":"escaped key"}`, `{"kind":"ClusterServiceVersion"}`, `{"kind":"A"`, `"x"`, ``,
}

// TestKindMatchesDecoding: Kind says what encoding/json decodes into a
// struct's Kind field, and fails exactly when decoding fails.
func TestKindMatchesDecoding(t *testing.T) {
	for _, js := range kindCases {
		checkKind(t, []byte(js))
	}
}

func checkKind(t *testing.T, js []byte) {
	t.Helper()
	var head struct {
		Kind string `json:"kind"`
	}
	werr := json.Unmarshal(js, &head)
	kind, err := Kind(js)
	if werr != nil {
		// Kind checks only the top level: it may accept what the decoder
		// rejects deeper inside, never the other way round.
		if json.Valid(js) {
			require.Error(t, err, "Kind(%q) = %q, decoding fails: %v", js, kind, werr)
		}
		return
	}
	require.NoError(t, err, "%q", js)
	assert.Equal(t, head.Kind, kind, "%q", js)
}

func FuzzKind(f *testing.F) {
	for _, c := range kindCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, js []byte) {
		if !json.Valid(js) {
			return // callers pass valid JSON
		}
		checkKind(t, js)
	})
}

// TestValidKind: ValidKind is jsonscan.Valid and Kind at once.
func TestValidKind(t *testing.T) {
	for _, js := range append(kindCases, `{"kind":"A","x":[1,}`, `{"kind":"A"} x`, `{"\u212aind":"K","y":tru}`) {
		checkValidKind(t, []byte(js))
	}
}

func FuzzValidKind(f *testing.F) {
	for _, c := range kindCases {
		f.Add([]byte(c))
	}
	f.Fuzz(checkValidKind)
}

func checkValidKind(t *testing.T, js []byte) {
	t.Helper()
	kind, valid, err := ValidKind(js)
	require.Equal(t, jsonscan.Valid(js), valid, "ValidKind(%q) valid says what Valid says", js)
	if !valid {
		return
	}
	wkind, werr := Kind(js)
	require.Equal(t, wkind, kind, "ValidKind(%q) kind is Kind's", js)
	require.Equal(t, werr == nil, err == nil, "ValidKind(%q) fails as Kind does: %v; Kind: %v", js, err, werr)
}

func TestFindCSV(t *testing.T) {
	crd := []byte(`{"kind":"CustomResourceDefinition","metadata":{"name":"ClusterServiceVersion"}}`)
	csv := []byte(`{"kind":"ClusterServiceVersion","metadata":{"name":"a"}}`)
	escaped := []byte(`{"kind":"ClusterServiceVersio\u006e"}`)
	broken := []byte(`{"kind":"ClusterServiceVersion","spec":{"x":tru}}`)
	for _, tc := range []struct {
		name    string
		objects [][]byte
		want    int
	}{
		{"none", nil, -1},
		{"after a CRD naming it", [][]byte{crd, csv}, 1},
		{"kind spelled with an escape", [][]byte{crd, escaped}, 1},
		{"invalid JSON is not a CSV", [][]byte{broken, csv}, 1},
		{"first of two", [][]byte{csv, csv}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, FindCSV(tc.objects))
		})
	}
}

func TestIdentify(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       TypeMeta
		err        string
	}{
		{"json", `{"apiVersion":"v1","kind":"ConfigMap"}`, TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ""},
		{"yaml", "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n", TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: KindCRD}, ""},
		{"yaml list", "- a\n", TypeMeta{}, "not a JSON object"},
		{"neither", "{: [", TypeMeta{}, "neither JSON nor YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Identify([]byte(tc.data))
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

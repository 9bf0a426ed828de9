package declcfg

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

var gvkCases = []string{
	`{"group":"etcd.database.coreos.com","kind":"EtcdCluster","version":"v1beta2"}`,
	` {"version" : "v1", "kind":"K", "group":""} `, `{}`, `{"group":"a","group":"b"}`,
	`{"Group":"a"}`, `{"GROUP":"a","group":"b"}`, `{"group":"a","extra":1}`, `{"gro\u0075p":"a"}`,
	`{"group":"a\"b"}`, `{"group":null}`, `{"group":5}`, `{"group":"a"} x`, `{"group":"a",}`,
	`{"group":"ü"}`, "{\"group\":\"\xff\"}", `{"\u212aind":"kelvin"}`, `[]`, `"x"`, ``, `{"group":"a"`,
}

// TestParseGVKValue: ParseGVKValue gives what json.Unmarshal gives, value and
// failure alike.
func TestParseGVKValue(t *testing.T) {
	for _, c := range gvkCases {
		checkParseGVKValue(t, c)
	}
}

func FuzzParseGVKValue(f *testing.F) {
	for _, c := range gvkCases {
		f.Add(c)
	}
	f.Fuzz(checkParseGVKValue)
}

func checkParseGVKValue(t *testing.T, value string) {
	t.Helper()
	var want GVKValue
	werr := json.Unmarshal([]byte(value), &want)
	got, err := ParseGVKValue([]byte(value))
	require.Equal(t, werr == nil, err == nil, "ParseGVKValue(%q) fails as json.Unmarshal does: %v; json.Unmarshal: %v", value, err, werr)
	if err == nil {
		require.Equal(t, want, got, "ParseGVKValue(%q)", value)
	}
}

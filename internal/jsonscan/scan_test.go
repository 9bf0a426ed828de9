package jsonscan

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSkipValue(t *testing.T) {
	tests := []string{
		`""`, `"a\"b"`, `"a\\"`, `"\\\\"`, `"x\\\"y"`, `{}`, `[]`, `{"a":[1,{"b":"}"}],"c":"]"}`,
		`123`, `-1.5e3`, `true`, `null`, `[ "a" , { } ]`,
	}
	for _, s := range tests {
		b := []byte(s + `,rest`)
		end, err := SkipValue(b, 0)
		require.NoError(t, err, s)
		assert.Equal(t, len(s), end, s)
	}
	_, err := SkipValue([]byte(`"unterminated`), 0)
	assert.Error(t, err)
	_, err = SkipValue([]byte(`{"a":1`), 0)
	assert.Error(t, err)
}

func TestSkipString(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int // -1: an error
	}{
		{`"abc"`, 5}, {`"a\"b"x`, 6}, {`"a\\"b`, 5}, {`"a\\\"b"`, 8}, {`"\\\\"`, 6}, {`"abc`, -1}, {`"a\"`, -1}, {`""`, 2},
	} {
		got, err := SkipString([]byte(c.in), 0)
		if c.want < 0 {
			assert.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
}

func TestTrimSpace(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{" \t\r\n", ""},
		{"{}", "{}"},
		{"\n {\"a\": 1}\r\n\t ", "{\"a\": 1}"},
		{"\v{}\f", "\v{}\f"},     // not JSON whitespace: kept, so Valid still fails
		{"{}\u00a0", "{}\u00a0"}, // likewise
	}
	for _, tc := range tests {
		got := TrimSpace([]byte(tc.in))
		assert.Equal(t, tc.want, string(got), "%q", tc.in)
		assert.Equal(t, Valid([]byte(tc.in)), Valid(got), "%q", tc.in)
	}
}

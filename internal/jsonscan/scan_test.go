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

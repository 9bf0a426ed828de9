package parity

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// same and sameList agree with canon: JSON documents equal as data are
// the same however they are written, and others are not.
func TestCanonCacheSame(t *testing.T) {
	tests := []struct {
		name string
		l, r string
		want bool
	}{
		{"equal text", `{"a":1}`, `{"a":1}`, true},
		{"trailing newline", `{"a":1}` + "\n", `{"a":1}`, true},
		{"space around", " \t{\"a\":1}\n", `{"a":1}`, true},
		{"keys reordered", `{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
		{"space inside", `{"a": [1, 2]}`, `{"a":[1,2]}`, true},
		{"values differ", `{"a":1}` + "\n", `{"a":2}`, false},
		{"space inside a string", `{"a":"x y"}`, `{"a":"xy"}`, false},
		{"not JSON, equal but for space", "not json\n", "not json", true},
		{"not JSON, differ", "not json", "not  json", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &canonCache{}
			assert.Equal(t, tt.want, c.same(tt.l, tt.r))
			assert.Equal(t, canon(tt.l) == canon(tt.r), c.same(tt.l, tt.r), "as canon")
			assert.Equal(t, tt.want, c.sameList([]string{tt.l, `{"k":0}`}, []string{tt.r, `{"k":0}` + "\n"}), "in a list")
			assert.Equal(t, tt.want, c.sameList([]string{`{"k":0}`, tt.l}, []string{tt.r, `{"k":0}`}), "in a list, reordered")
		})
	}
}

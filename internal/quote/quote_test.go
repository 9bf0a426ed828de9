package quote

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"etcd.v0.9.4", "etcd.v0.9.4"},
		{"with space", "with space"},
		{"", ""},
		{"ünïcode", "ünïcode"},
		{"a\x1b[31mred\r\nnext: forged", `"a\x1b[31mred\r\nnext: forged"`},
		{"tab\there", `"tab\there"`},
		{"bidi\u202eevil", `"bidi\u202eevil"`},
		{"bad\xffutf8", `"bad\xffutf8"`},
		{`"quoted"`, `"\"quoted\""`},
		{"nbsp\u00a0", `"nbsp\u00a0"`},
	} {
		assert.Equal(t, tc.want, Name(tc.in), "%q", tc.in)
	}
}

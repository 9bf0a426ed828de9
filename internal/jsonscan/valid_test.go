package jsonscan

import (
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var validCases = []string{
	``, ` `, `{}`, `[]`, `{"a":1}`, `{"a":1,}`, `[1,]`, `[1 2]`, `{"a" 1}`, `{a:1}`, `"x"`, `"\u00e9\n\t\"\\\/"`, `"\x"`, `"\u12"`,
	"\"ctl\x01\"", "\"tab\tin\"", `"ünï"`, "\"\xff\"", `0`, `-0`, `01`, `1.`, `1.5`, `-1.5e+10`, `1e`, `1E-2`, `.5`, `-`, `+1`,
	`true`, `tru`, `truex`, `null`, `nul`, `false`, `[true,false,null]`, `{"a":{"b":[{"c":"d"}]}}`, `{"a":1}x`, `{"a":1} `,
	` {"a" : [ 1 , 2 ] } `, `[[[[]]]]`, `[[[[]]]`, `{"a":"}"}`, `{"a":"\"}"}`, `"unterminated`, `{"a":1`, `nan`,
	strings.Repeat("[", 10001) + strings.Repeat("]", 10001), strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
}

func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		assert.Equal(t, json.Valid([]byte(c)), Valid([]byte(c)), "%.40q", c)
	}
	// Every real manifest, and every prefix of a few of them.
	dbs, _ := filepath.Glob(filepath.Join("..", "..", "fixtures", "legacy", "*", "opm-migrate", "*", "catalog.json"))
	for _, p := range dbs[:3] {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		for n := 0; n < len(data); n += 97 {
			assert.Equal(t, json.Valid(data[:n]), Valid(data[:n]), "%s[:%d]", p, n)
		}
	}
}

func FuzzValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		require.Equal(t, json.Valid(b), Valid(b), "Valid(%q) says what json.Valid says", b)
	})
}

// TestHasSpecialByte checks the eight-byte test against plainStringByte
// for every byte value in every lane, next to every filler byte (the
// word tests borrow across lanes).
func TestHasSpecialByte(t *testing.T) {
	for fill := 0; fill < 256; fill++ {
		for c := 0; c < 256; c++ {
			for lane := 0; lane < 8; lane++ {
				var w [8]byte
				for k := range w {
					w[k] = byte(fill)
				}
				w[lane] = byte(c)
				want := !plainStringByte[c] || !plainStringByte[fill]
				require.Equal(t, want, hasSpecialByte(binary.LittleEndian.Uint64(w[:])), "hasSpecialByte(%q)", w)
			}
		}
	}
}

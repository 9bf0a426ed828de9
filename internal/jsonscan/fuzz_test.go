package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var scanSeeds = []string{
	`{}`, `[]`, `{"a":1,"b":[1,{"c":"}"}],"d":"\"]"}`, `[1, "x", {"k": null}, [true]]`, `"plain"`, `"esc\"aped\\"`,
	`{"ke\u0079":"v","key":2}`, ` { "a" : [ ] , "b" : { } } `, `123`, `-1.5e3`, `null`, `"\u00e9"`, `{"a":{"b":{"c":[[[]]]}}}`,
}

func addSeeds(f *testing.F) {
	f.Helper()
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	for _, s := range validCases {
		f.Add([]byte(s))
	}
}

// FuzzSkipValue: on valid JSON, SkipValue ends exactly where the value
// does.
func FuzzSkipValue(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		end, err := SkipValue(b, 0)
		require.NoError(t, err, "SkipValue(%q)", b)
		require.Equal(t, len(bytes.TrimRight(b, " \t\r\n")), end, "SkipValue(%q)", b)
	})
}

type field struct{ key, value string }

// collectFields is a field callback appending to fields.
func collectFields(fields *[]field) func(k, v []byte) error {
	return func(k, v []byte) error {
		*fields = append(*fields, field{string(k), string(v)})
		return nil
	}
}

// FuzzObjectFields: on a valid object, the keys and raw values are the
// ones json.Decoder reads, in order.
func FuzzObjectFields(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) || b[SkipSpace(b, 0)] != '{' {
			return
		}
		var got []field
		require.NoError(t, ObjectFields(b, collectFields(&got)), "ObjectFields(%q)", b)
		dec := json.NewDecoder(bytes.NewReader(b))
		_, err := dec.Token()
		require.NoError(t, err)
		var want []field
		for dec.More() {
			k, err := dec.Token()
			require.NoError(t, err)
			var v json.RawMessage
			require.NoError(t, dec.Decode(&v))
			want = append(want, field{k.(string), string(v)})
		}
		require.Len(t, got, len(want), "ObjectFields(%q) = %q, json.Decoder reads %q", b, got, want)
		for i := range got {
			require.Equal(t, want[i].value, got[i].value, "ObjectFields(%q) value %d", b, i)
			// json.Decoder re-encodes invalid UTF-8 in keys; values are raw.
			if !bytes.ContainsRune([]byte(want[i].key), '\uFFFD') {
				require.Equal(t, want[i].key, got[i].key, "ObjectFields(%q) key %d", b, i)
			}
		}
		// ObjectFieldsAt walks the same object followed by more input and
		// ends where SkipValue ends.
		stream := append(append([]byte(nil), b...), ` {"next":1}`...)
		n := 0
		end, err := ObjectFieldsAt(stream, 0, func(k, v []byte) error { n++; return nil })
		wantEnd, _ := SkipValue(stream, SkipSpace(stream, 0))
		require.NoError(t, err, "ObjectFieldsAt(%q)", stream)
		require.Equal(t, wantEnd, end, "ObjectFieldsAt(%q) ends where SkipValue ends", stream)
		require.Equal(t, len(want), n, "ObjectFieldsAt(%q) fields", stream)
	})
}

// FuzzValidFields: ValidFields says what Valid says about an object and
// hands fn the fields ObjectFields reads; anything else is ErrSyntax.
func FuzzValidFields(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		var got []field
		valid, err := ValidFields(b, collectFields(&got))
		if i := SkipSpace(b, 0); i >= len(b) || b[i] != '{' {
			require.Equal(t, ErrSyntax, err, "ValidFields(%q) on a non-object (valid %v)", b, valid)
			require.Empty(t, got, "ValidFields(%q) on a non-object", b)
			return
		}
		require.NoError(t, err, "ValidFields(%q)", b)
		require.Equal(t, Valid(b), valid, "ValidFields(%q) says what Valid says", b)
		if !valid {
			return
		}
		var want []field
		require.NoError(t, ObjectFields(b, collectFields(&want)), "ObjectFields(%q)", b)
		require.Equal(t, want, got, "ValidFields(%q) hands over what ObjectFields reads", b)
	})
}

// FuzzArrayElems: on a valid array, the raw elements are the ones
// json.Decoder reads.
func FuzzArrayElems(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		var got []string
		require.NoError(t, ArrayElems(b, func(e []byte) error {
			got = append(got, string(e))
			return nil
		}), "ArrayElems(%q)", b)
		var raw []json.RawMessage
		if json.Unmarshal(b, &raw) != nil {
			raw = nil // not an array: no elements
		}
		var want []string
		for _, e := range raw {
			want = append(want, string(bytes.TrimSpace(e)))
		}
		require.Equal(t, want, got, "ArrayElems(%q) reads what encoding/json decodes", b)
	})
}

// FuzzString: String accepts exactly the JSON strings and decodes them as
// encoding/json does.
func FuzzString(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, v []byte) {
		var want string
		werr := json.Unmarshal(v, &want)
		isString := werr == nil && len(v) > 0 && v[0] == '"'
		got, ok := String(v)
		require.Equal(t, isString, ok, "String(%q) accepts it (encoding/json: %q, %v)", v, want, werr)
		if ok {
			require.Equal(t, want, got, "String(%q)", v)
		}
	})
}

// FuzzObjects: when Objects accepts a stream, json.Decoder splits it into
// the same values.
func FuzzObjects(f *testing.F) {
	addSeeds(f)
	f.Add([]byte(`{"a":1}{"b":2}` + "\n" + `[3]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := Objects(data)
		if !ok {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		for i := 0; ; i++ {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			if errors.Is(err, io.EOF) {
				require.Len(t, got, i, "Objects(%q): json.Decoder reads %d values", data, i)
				return
			}
			if err != nil {
				return // grammar inside a value is the consumer's to check
			}
			require.Less(t, i, len(got), "Objects(%q) = %q, json.Decoder reads %q as value %d", data, got, raw, i)
			require.Equal(t, string(raw), string(got[i]), "Objects(%q) value %d", data, i)
		}
	})
}

// frameAll frames data read one byte at a time (every object crosses
// reads) and returns the objects and whether the whole input was framed.
func frameAll(data []byte) ([][]byte, bool) {
	f := NewFramer(iotest.OneByteReader(bytes.NewReader(data)))
	var out [][]byte
	for {
		obj, ok, err := f.Next()
		if err != nil || !ok {
			return out, err == nil && f.Done()
		}
		out = append(out, append([]byte(nil), obj...))
	}
}

func TestFramer(t *testing.T) {
	data := []byte(" {\"a\":\"}\\\"{\"}\n{\"b\":[1,{\"c\":2}]}{}\t")
	got, done := frameAll(data)
	require.True(t, done, "frameAll = %q", got)
	require.Len(t, got, 3)
	require.Equal(t, `{"b":[1,{"c":2}]}`, string(got[1]))
	for _, bad := range []string{`{"a":1}[1]`, `{"a":1}{"b":`, `{"a":tru}`, `{"a":1}}`} {
		f := NewFramer(strings.NewReader(bad))
		for {
			_, ok, err := f.Next()
			require.NoError(t, err)
			if !ok {
				break
			}
		}
		assert.False(t, f.Done(), "%q: framed to the end", bad)
		rest, _ := io.ReadAll(f.Rest())
		assert.NotEmpty(t, rest, "%q: nothing left for the fallback decoder", bad)
	}
}

// FuzzFramer: a stream of valid objects is framed into the objects
// json.Decoder reads; anything else is never framed past what is valid.
func FuzzFramer(f *testing.F) {
	addSeeds(f)
	f.Add([]byte(`{"a":1}{"b":2}` + "\n" + `{"c":"\"}"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, done := frameAll(data)
		dec := json.NewDecoder(bytes.NewReader(data))
		for i, obj := range got {
			var raw json.RawMessage
			require.NoError(t, dec.Decode(&raw), "framed %q as object %d of %q", obj, i, data)
			require.Equal(t, string(raw), string(obj), "object %d of %q", i, data)
		}
		if done {
			var raw json.RawMessage
			err := dec.Decode(&raw)
			require.ErrorIs(t, err, io.EOF, "framed all of %q, json.Decoder reads more: %q", data, raw)
		}
	})
}

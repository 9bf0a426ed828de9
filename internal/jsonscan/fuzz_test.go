package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

var scanSeeds = []string{
	`{}`, `[]`, `{"a":1,"b":[1,{"c":"}"}],"d":"\"]"}`, `[1, "x", {"k": null}, [true]]`, `"plain"`, `"esc\"aped\\"`,
	`{"ke\u0079":"v","key":2}`, ` { "a" : [ ] , "b" : { } } `, `123`, `-1.5e3`, `null`, `"\u00e9"`, `{"a":{"b":{"c":[[[]]]}}}`,
}

func addSeeds(f *testing.F) {
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
		if err != nil {
			t.Fatalf("SkipValue(%q): %v", b, err)
		}
		if want := len(bytes.TrimRight(b, " \t\r\n")); end != want {
			t.Fatalf("SkipValue(%q) = %d, want %d", b, end, want)
		}
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
		if err := ObjectFields(b, collectFields(&got)); err != nil {
			t.Fatalf("ObjectFields(%q): %v", b, err)
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		if _, err := dec.Token(); err != nil {
			t.Fatal(err)
		}
		var want []field
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				t.Fatal(err)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			want = append(want, field{k.(string), string(v)})
		}
		if len(got) != len(want) {
			t.Fatalf("ObjectFields(%q) = %q, json.Decoder reads %q", b, got, want)
		}
		for i := range got {
			// json.Decoder re-encodes invalid UTF-8 in keys; values are raw.
			if got[i].value != want[i].value || got[i].key != want[i].key && !bytes.ContainsRune([]byte(want[i].key), '\uFFFD') {
				t.Fatalf("ObjectFields(%q) = %q, json.Decoder reads %q", b, got, want)
			}
		}
		// ObjectFieldsAt walks the same object followed by more input and
		// ends where SkipValue ends.
		stream := append(append([]byte(nil), b...), ` {"next":1}`...)
		n := 0
		end, err := ObjectFieldsAt(stream, 0, func(k, v []byte) error { n++; return nil })
		wantEnd, _ := SkipValue(stream, SkipSpace(stream, 0))
		if err != nil || end != wantEnd || n != len(want) {
			t.Fatalf("ObjectFieldsAt(%q) = %d, %v after %d fields; SkipValue ends at %d, %d fields", stream, end, err, n, wantEnd, len(want))
		}
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
			if err != ErrSyntax || len(got) > 0 {
				t.Fatalf("ValidFields(%q) on a non-object = %v, %v after %d fields", b, valid, err, len(got))
			}
			return
		}
		if err != nil || valid != Valid(b) {
			t.Fatalf("ValidFields(%q) = %v, %v; Valid says %v", b, valid, err, Valid(b))
		}
		if !valid {
			return
		}
		var want []field
		if err := ObjectFields(b, collectFields(&want)); err != nil {
			t.Fatalf("ObjectFields(%q): %v", b, err)
		}
		if len(got) != len(want) {
			t.Fatalf("ValidFields(%q) = %q, ObjectFields reads %q", b, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("ValidFields(%q) = %q, ObjectFields reads %q", b, got, want)
			}
		}
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
		if err := ArrayElems(b, func(e []byte) error {
			got = append(got, string(e))
			return nil
		}); err != nil {
			t.Fatalf("ArrayElems(%q): %v", b, err)
		}
		var want []json.RawMessage
		if json.Unmarshal(b, &want) != nil {
			want = nil // not an array: no elements
		}
		if len(got) != len(want) {
			t.Fatalf("ArrayElems(%q) = %q, encoding/json decodes %q", b, got, want)
		}
		for i := range got {
			if !bytes.Equal([]byte(got[i]), bytes.TrimSpace(want[i])) {
				t.Fatalf("ArrayElems(%q) = %q, encoding/json decodes %q", b, got, want)
			}
		}
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
		if ok != isString || ok && got != want {
			t.Fatalf("String(%q) = %q, %v; encoding/json: %q, %v", v, got, ok, want, werr)
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
				if i != len(got) {
					t.Fatalf("Objects(%q) = %d values, json.Decoder reads %d", data, len(got), i)
				}
				return
			}
			if err != nil {
				return // grammar inside a value is the consumer's to check
			}
			if i >= len(got) || !bytes.Equal(raw, got[i]) {
				t.Fatalf("Objects(%q) = %q, json.Decoder reads %q as value %d", data, got, raw, i)
			}
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
	if !done || len(got) != 3 || string(got[1]) != `{"b":[1,{"c":2}]}` {
		t.Fatalf("frameAll = %q, %v", got, done)
	}
	for _, bad := range []string{`{"a":1}[1]`, `{"a":1}{"b":`, `{"a":tru}`, `{"a":1}}`} {
		f := NewFramer(strings.NewReader(bad))
		for {
			_, ok, err := f.Next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
		}
		if f.Done() {
			t.Errorf("%q: framed to the end", bad)
		}
		rest, _ := io.ReadAll(f.Rest())
		if len(rest) == 0 {
			t.Errorf("%q: nothing left for the fallback decoder", bad)
		}
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
			if err := dec.Decode(&raw); err != nil || !bytes.Equal(raw, obj) {
				t.Fatalf("framed %q as object %d of %q; json.Decoder: %q, %v", obj, i, data, raw, err)
			}
		}
		if done {
			var raw json.RawMessage
			if err := dec.Decode(&raw); !errors.Is(err, io.EOF) {
				t.Fatalf("framed all of %q, json.Decoder reads more: %q, %v", data, raw, err)
			}
		}
	})
}

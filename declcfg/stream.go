package declcfg

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// DecodeStream reads a stream of blobs from r and calls fn with each one as
// JSON, in order, with its 0-based position in the stream. The stream is
// either concatenated JSON objects (it starts with '{') or multi-document
// YAML; empty YAML documents are skipped. Every blob must be an object.
// Decoding stops at the first error, which names the blob position; an
// error returned by fn is returned unchanged.
//
// Only one blob is held at a time, so a large file costs the size of its
// largest blob, not its own size.
func DecodeStream(r io.Reader, fn func(blob json.RawMessage, index int) error) error {
	return decodeStream(r, true, fn)
}

// decodeStream is DecodeStream; without own, a JSON blob handed to fn
// may point into the stream's buffer and is valid only until fn returns
// (addBlob copies what it keeps), which saves copying every blob.
func decodeStream(r io.Reader, own bool, fn func(blob json.RawMessage, index int) error) error {
	return decodeStreamSpans(r, own, fn, nil)
}

// decodeStreamSpans is decodeStream; when spans is not nil, it also
// collects there the byte range of every blob of a stream that is plain
// concatenated JSON objects, each framed as it is in the input (see
// FileRead), and sets it to nil for any other stream: YAML, a byte order
// mark, a stream left to encoding/json.
func decodeStreamSpans(r io.Reader, own bool, fn func(blob json.RawMessage, index int) error, spans *[]Span) error {
	br := bufio.NewReaderSize(&nulGuard{r: r}, 8*1024) // json.Decoder buffers on its own
	first, skipped, bom, err := firstNonSpace(br)
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil
		}
		return fmt.Errorf("read blob stream: %w", err)
	}
	if first == '{' {
		if bom && spans != nil {
			*spans, spans = nil, nil
		}
		return frameJSONObjects(br, own, fn, &spanRecorder{base: skipped, spans: spans})
	}
	if spans != nil {
		*spans = nil
	}
	return decodeYAMLStream(br, fn)
}

// ErrNUL is matched (errors.Is) by the error for a NUL byte in a blob
// stream. No JSON or YAML catalog holds one (JSON strings escape it); a
// file a crash left zeroed (its size written, its data not) is all NULs,
// and the YAML reader would take it for an empty document.
var ErrNUL = errors.New("NUL byte")

// nulError is ErrNUL at an offset.
type nulError struct{ offset int64 }

func (e *nulError) Error() string {
	return fmt.Sprintf("NUL byte at byte offset %d: not a JSON or YAML catalog file (a file zeroed by a crash?)", e.offset)
}
func (e *nulError) Is(target error) bool { return target == ErrNUL }

// nulGuard passes reads through, failing at the first NUL byte: the bytes
// before it are returned, then the error. One IndexByte per read
// (vectorized), so the scan costs little next to the decode.
type nulGuard struct {
	r   io.Reader
	off int64
	err error
}

func (g *nulGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	if i := bytes.IndexByte(p[:n], 0); i >= 0 {
		g.err = &nulError{offset: g.off + int64(i)}
		g.off += int64(i)
		if i == 0 {
			return 0, g.err
		}
		return i, nil
	}
	g.off += int64(n)
	return n, err
}

// checkNUL is nulGuard for input read whole.
func checkNUL(data []byte) error {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return &nulError{offset: int64(i)}
	}
	return nil
}

// firstNonSpace peeks at the first byte that is not JSON/YAML whitespace
// without consuming anything but that whitespace; it also says how many
// bytes it consumed and whether a byte order mark was among them.
func firstNonSpace(br *bufio.Reader) (first byte, skipped int64, bom bool, err error) {
	for ; ; skipped++ {
		b, err := br.ReadByte()
		if err != nil {
			return 0, skipped, bom, err
		}
		switch b {
		case ' ', '\t', '\r', '\n':
			continue
		case 0xEF: // a UTF-8 byte order mark is not content
			if rest, perr := br.Peek(2); perr == nil && rest[0] == 0xBB && rest[1] == 0xBF {
				_, _ = br.Discard(2)
				skipped += 2
				bom = true
				continue
			}
		}
		return b, skipped, bom, br.UnreadByte()
	}
}

// decodeJSONObjects reads a stream of concatenated JSON objects. The
// jsonscan.Framer finds each object's end (jumping from quote to quote
// through strings, so the long base64 manifests of bundle objects cost
// little) and checks it once with jsonscan.Valid, where json.Decoder
// would scan every byte twice (to find the value, then to copy it into a
// json.RawMessage). At the first thing that is not a
// complete valid object (bad JSON, a non-object, a truncated stream) the
// rest of the stream goes to decodeJSONStream, whose errors the loader
// has always reported.
func decodeJSONObjects(br *bufio.Reader, own bool, fn func(json.RawMessage, int) error) error {
	return frameJSONObjects(br, own, fn, &spanRecorder{})
}

// spanRecorder collects the blob ranges of a stream (decodeStreamSpans):
// base is where the framed input starts in the stream; spans is nil when
// no one asked.
type spanRecorder struct {
	base  int64
	spans *[]Span
}

// frameJSONObjects is decodeJSONObjects, noting each framed blob's range
// in rec; a stream left to encoding/json has none.
func frameJSONObjects(br *bufio.Reader, own bool, fn func(json.RawMessage, int) error, rec *spanRecorder) error {
	fr := jsonscan.NewFramer(br)
	for i := 0; ; i++ {
		blob, ok, err := fr.Next()
		if err != nil {
			return fmt.Errorf("blob #%d: decode JSON: %w", i, err)
		}
		if !ok {
			if fr.Done() {
				return nil
			}
			if rec.spans != nil {
				*rec.spans = nil
			}
			return decodeJSONStreamFrom(fr.Rest(), i, fn)
		}
		if rec.spans != nil {
			end := rec.base + fr.Offset()
			*rec.spans = append(*rec.spans, Span{Off: end - int64(len(blob)), End: end})
		}
		if own {
			blob = append(json.RawMessage(nil), blob...)
		}
		if err := fn(blob, i); err != nil {
			return err
		}
	}
}

func decodeJSONStream(r io.Reader, fn func(json.RawMessage, int) error) error {
	return decodeJSONStreamFrom(r, 0, fn)
}

// decodeJSONStreamFrom decodes with encoding/json, numbering blobs from
// first.
func decodeJSONStreamFrom(r io.Reader, first int, fn func(json.RawMessage, int) error) error {
	dec := json.NewDecoder(r)
	for i := first; ; i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("blob #%d: decode JSON: %w", i, err)
		}
		if len(raw) == 0 || raw[0] != '{' {
			return fmt.Errorf("blob #%d: not a JSON object: %s", i, truncate(raw, 60))
		}
		if err := fn(raw, i); err != nil {
			return err
		}
	}
}

func decodeYAMLStream(r *bufio.Reader, fn func(json.RawMessage, int) error) error {
	yr := utilyaml.NewYAMLReader(r)
	i := 0
	for doc := 0; ; doc++ {
		data, err := yr.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("YAML document #%d: %w", doc, err)
		}
		js, err := yamlToJSON(data)
		if err != nil {
			return fmt.Errorf("YAML document #%d: %w", doc, err)
		}
		if len(js) == 0 || bytes.Equal(js, []byte("null")) {
			continue // empty document (only comments or separators)
		}
		if js[0] != '{' {
			return fmt.Errorf("YAML document #%d: not an object: %s", doc, truncate(js, 60))
		}
		if err := fn(json.RawMessage(js), i); err != nil {
			return err
		}
		i++
	}
}

// yamlToJSON converts one YAML document to compact JSON with sorted keys
// and, unlike yaml.YAMLToJSON, without HTML escaping, so that a "<" in a
// YAML catalog stays "<" when the blob is written as JSON. Numbers keep
// their literal form.
func yamlToJSON(data []byte) ([]byte, error) {
	js, err := safeYAMLToJSON(data)
	if err != nil {
		return nil, err
	}
	js = bytes.TrimSpace(js)
	if !bytes.Contains(js, []byte(`\u00`)) {
		return js, nil // nothing was escaped
	}
	return CanonicalValue(js)
}

// safeYAMLToJSON is yaml.YAMLToJSON guarded against panics: the YAML
// parser is third-party code fed with untrusted catalog files, and one bad
// file must not take a whole server or migration down.
func safeYAMLToJSON(data []byte) (_ []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("YAML parser failure: %v", p)
		}
	}()
	return yaml.YAMLToJSON(data)
}

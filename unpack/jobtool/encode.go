package jobtool

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// DefaultDataLimit is the most data a ConfigMap may hold: the API server
// rejects one whose data and binaryData values add up to more.
const DefaultDataLimit = 1 << 20

// encodedBundle is the data, binaryData and size of a bundle as stored.
type encodedBundle struct {
	Data       map[string]string
	BinaryData map[string][]byte
	Size       int
	sizes      []fileSize
}

type fileSize struct {
	path string
	size int
}

// encodeFiles stores each file as text in Data, as raw bytes in BinaryData
// when it is not UTF-8, or (gzipped) as gzip+base64 text in BinaryData.
func encodeFiles(files []bundleFile, gzipped bool) (*encodedBundle, error) {
	e := &encodedBundle{Data: map[string]string{}, BinaryData: map[string][]byte{}}
	for _, f := range files {
		var n int
		switch {
		case gzipped:
			v, err := gzipBase64(f.Content)
			if err != nil {
				return nil, fmt.Errorf("compress %s: %w", f.Path, err)
			}
			e.BinaryData[f.Key] = v
			n = len(v)
		case utf8.Valid(f.Content):
			e.Data[f.Key] = string(f.Content)
			n = len(f.Content)
		default:
			e.BinaryData[f.Key] = f.Content
			n = len(f.Content)
		}
		e.Size += n
		e.sizes = append(e.sizes, fileSize{f.Path, n})
	}
	return e, nil
}

// checkLimit fails when the stored bundle would exceed limit bytes, naming
// the biggest files so the user knows what to trim (or to use gzip).
func (e *encodedBundle) checkLimit(limit int, gzipped bool) error {
	if e.Size <= limit {
		return nil
	}
	sizes := append([]fileSize(nil), e.sizes...)
	sort.SliceStable(sizes, func(i, j int) bool { return sizes[i].size > sizes[j].size })
	if len(sizes) > 3 {
		sizes = sizes[:3]
	}
	var names []string
	for _, s := range sizes {
		names = append(names, fmt.Sprintf("%s (%d bytes)", s.path, s.size))
	}
	hint := "; store it gzipped"
	if gzipped {
		hint = ""
	}
	return fmt.Errorf("bundle needs %d bytes in the ConfigMap, over the limit of %d bytes%s; biggest files: %s",
		e.Size, limit, hint, strings.Join(names, ", "))
}

// gzipBase64 is opm's gzip+base64 encoding: the base64 (standard, padded)
// text of the gzipped content.
func gzipBase64(content []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(content); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	out := make([]byte, base64.StdEncoding.EncodedLen(buf.Len()))
	base64.StdEncoding.Encode(out, buf.Bytes())
	return out, nil
}

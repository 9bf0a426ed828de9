package declcfg

// Span is the byte range [Off, End) of one blob in its file.
type Span struct{ Off, End int64 }

// WithSpans makes LoadDir and EachPackage hand fn, for every file they
// decode that is plain concatenated JSON objects (no byte order mark,
// every object framed as it is in the file), the byte range of each of
// its blobs, in blob order (Origin.Index): the file's bytes in that range
// are the blob exactly as decoded. A reader that keeps only a blob's
// Origin can then read that blob back alone, without reading the file up
// to it to find where it is, as the loader has already framed every blob.
// Files of any other form (YAML, a byte order mark, JSON the framer left
// to encoding/json) and files without blobs are not reported. fn is
// called from the decoding goroutines, concurrently, once a file decoded
// without error; it may keep spans.
func WithSpans(fn func(file string, spans []Span)) LoadOption {
	return func(o *loadOptions) { o.spans = fn }
}

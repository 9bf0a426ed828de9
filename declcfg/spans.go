package declcfg

import "time"

// Span is the byte range [Off, End) of one blob in its file.
type Span struct{ Off, End int64 }

// FileRead is what the loader saw of one file it decoded: the file's size
// and modification time, taken from the open file before its first byte
// was read, and, when the file is plain concatenated JSON objects (no
// byte order mark, every object framed as it is in the file), the byte
// range of each of its blobs, in blob order (Origin.Index): the file's
// bytes in that range are the blob exactly as decoded. Spans is nil for
// files of any other form (YAML, a byte order mark, JSON the framer left
// to encoding/json) and files without blobs.
//
// A reader that keeps only a blob's Origin can then read that blob back
// alone, without reading the file up to it, and know the file is still
// the one decoded: a write after the stamp changes the size or the
// modification time, while a stamp taken later than the read could
// already include a write the decoded bytes do not.
type FileRead struct {
	File    string // slash path relative to the loaded root, as Origin.File
	Size    int64
	ModTime time.Time
	Spans   []Span
}

// WithFileReads makes LoadDir and EachPackage hand fn a FileRead for every
// file they decode without error (a load by package skips, unread, a
// file that cannot hold its packages). fn is called from the decoding
// goroutines, concurrently; it may keep the FileRead.
func WithFileReads(fn func(FileRead)) LoadOption {
	return func(o *loadOptions) { o.fileReads = fn }
}

package jsonscan

import (
	"bytes"
	"errors"
	"io"
)

// Framer splits a stream of concatenated JSON objects into one object at
// a time, reading only as far as the next object's end: a stream costs
// the size of its largest object, not its own size. Each object is
// checked with Valid once framed.
type Framer struct {
	r    io.Reader
	data []byte // read so far; data[off:] is not consumed yet
	off  int
	buf  []byte // data[off:]
	pos  int64  // input bytes consumed
	eof  bool
	err  error
}

// NewFramer returns a Framer reading r.
func NewFramer(r io.Reader) *Framer { return &Framer{r: r} }

// Next returns the next object, valid JSON, and consumes it; the slice is
// valid until the next call. ok is false at the end of the input (Done)
// or when the next value is not a complete valid object; Rest then still
// holds it. err is a read error of the underlying reader.
func (f *Framer) Next() (obj []byte, ok bool, err error) {
	i := 0
	for {
		i = SkipSpace(f.buf, i)
		if i < len(f.buf) {
			break
		}
		if !f.fill() {
			f.consume(len(f.buf))
			return nil, false, f.err
		}
	}
	f.consume(i) // drop the whitespace between objects
	if f.buf[0] != '{' {
		return nil, false, nil
	}
	j, depth := 0, 0
	for {
		end, d, err := scanNested(f.buf, j, depth)
		switch {
		case errors.Is(err, errShort):
			j, depth = end, d
			if !f.fill() {
				return nil, false, f.err
			}
			continue
		case err != nil:
			return nil, false, nil
		}
		obj = f.buf[:end]
		if !Valid(obj) {
			return nil, false, nil
		}
		f.consume(end)
		return obj, true, nil
	}
}

// Done reports whether the whole input was read and consumed.
func (f *Framer) Done() bool { return f.eof && len(f.buf) == 0 }

// Offset is the number of input bytes consumed so far: right after Next
// returned an object, where that object ends in the input, so that a
// caller can note where each object is without keeping it.
func (f *Framer) Offset() int64 { return f.pos }

// Rest is the input not consumed yet: what Next could not frame, then the
// rest of the underlying reader. Callers hand it to a json.Decoder for
// its error.
func (f *Framer) Rest() io.Reader { return io.MultiReader(bytes.NewReader(f.buf), f.r) }

// fill reads more input; it reports false at the end of the input. The
// unconsumed bytes keep their offsets within f.buf.
func (f *Framer) fill() bool {
	if f.eof {
		return false
	}
	const minRead = 32 * 1024
	if cap(f.data)-len(f.data) < minRead {
		unread := len(f.data) - f.off
		if cap(f.data)-unread >= minRead {
			copy(f.data, f.data[f.off:]) // room enough once consumed bytes go
			f.data = f.data[:unread]
		} else {
			nb := make([]byte, unread, 2*cap(f.data)+2*minRead) // doubles for a big object
			copy(nb, f.data[f.off:])
			f.data = nb
		}
		f.off = 0
	}
	n, err := f.r.Read(f.data[len(f.data):cap(f.data)])
	f.data = f.data[:len(f.data)+n]
	f.buf = f.data[f.off:]
	if err != nil {
		f.eof = true
		if !errors.Is(err, io.EOF) {
			f.err = err
		}
	}
	return n > 0 || !f.eof
}

// consume drops the first n bytes of f.buf.
func (f *Framer) consume(n int) {
	f.off += n
	f.pos += int64(n)
	f.buf = f.data[f.off:]
}

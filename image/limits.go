package image

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Limits bound what reading one image may cost, so that a small hostile
// layer (a gzip bomb, a huge sparse file, millions of entries, a registry
// that drips bytes) cannot fill the disk, the memory or the clock.
type Limits struct {
	// MaxBytes bounds the bytes written for the whole image.
	MaxBytes int64
	// MaxFileBytes bounds the size of one file written.
	MaxFileBytes int64
	// MaxFiles bounds the entries (files, directories, links) written.
	MaxFiles int64
	// MaxRatio bounds a layer's uncompressed size over its compressed
	// size, once it has expanded past RatioFloor.
	MaxRatio int64
	// Timeout bounds pulling and extracting the image.
	Timeout time.Duration
}

// RatioFloor is the uncompressed size of a layer below which MaxRatio is
// not checked: small layers (a tar of one short file is mostly zero
// padding) compress far better than any catalog does.
const RatioFloor = 64 << 20

// DefaultLimits fit every catalog and bundle image with room to spare.
// They were chosen from the benchmark catalogs: a generated
// 10,000-bundle legacy index is a 353 MB database and 244 MB of
// declarative config once migrated (about 1.4 GB and 1 GB at 40,000
// bundles), and their compression: declarative config gzips about 10:1,
// the database 30:1, zstd at its highest level about 100:1, while a gzip
// of zeros reaches 1000:1.
var DefaultLimits = Limits{
	MaxBytes:     8 << 30,
	MaxFileBytes: 4 << 30,
	MaxFiles:     1_000_000,
	MaxRatio:     250,
	Timeout:      30 * time.Minute,
}

// WithLimits replaces DefaultLimits. A zero field keeps its default.
func WithLimits(l Limits) Option {
	return func(o *options) {
		d := DefaultLimits
		for _, f := range []struct{ to, from *int64 }{{&d.MaxBytes, &l.MaxBytes}, {&d.MaxFileBytes, &l.MaxFileBytes}, {&d.MaxFiles, &l.MaxFiles}, {&d.MaxRatio, &l.MaxRatio}} {
			if *f.from > 0 {
				*f.to = *f.from
			}
		}
		if l.Timeout > 0 {
			d.Timeout = l.Timeout
		}
		o.limits = d
	}
}

// LimitKind names the limit an image went over.
type LimitKind string

// The limits of Limits.
const (
	LimitBytes     LimitKind = "total bytes"
	LimitFileBytes LimitKind = "bytes per file"
	LimitFiles     LimitKind = "files"
	LimitRatio     LimitKind = "expansion ratio"
	LimitTime      LimitKind = "time"
)

// LimitError is returned when an image goes over one of its Limits.
// Nothing of the extraction is kept.
type LimitError struct {
	// Kind is the limit.
	Kind LimitKind
	// Image is the reference as asked for.
	Image string
	// Layer describes the layer (number and digest), if one was read.
	Layer string
	// Entry is the tar entry being read or written, if any.
	Entry string
	// Value is what was reached; Max the limit.
	Value, Max int64
}

func (e *LimitError) Error() string {
	where := "image " + e.Image
	if e.Layer != "" {
		where = "layer " + e.Layer
	}
	if e.Entry != "" {
		where += ": entry " + e.Entry
	}
	switch e.Kind {
	case LimitRatio:
		return fmt.Sprintf("%s: expands more than %d times its compressed size (%s uncompressed so far): refused as a decompression bomb",
			where, e.Max, sizeString(e.Value))
	case LimitTime:
		return fmt.Sprintf("%s: not read within the %s time limit", where, time.Duration(e.Max))
	case LimitFiles:
		return fmt.Sprintf("%s: more than %d files: refused", where, e.Max)
	}
	return fmt.Sprintf("%s: %s would exceed the %s limit of %s: refused", where, sizeString(e.Value), e.Kind, sizeString(e.Max))
}

// sizeString prints n bytes in the largest binary unit that keeps it whole
// enough to read.
func sizeString(n int64) string {
	for _, u := range []struct {
		shift uint
		name  string
	}{{30, "GiB"}, {20, "MiB"}, {10, "KiB"}} {
		if n >= 1<<u.shift {
			return fmt.Sprintf("%.1f %s", float64(n)/float64(int64(1)<<u.shift), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// meter counts one layer's compressed and uncompressed bytes and stops
// the stream when the ratio or the clock runs out.
type meter struct {
	ctx        context.Context
	maxRatio   int64
	timeout    time.Duration
	compressed int64
	expanded   int64
}

// compressedReader counts the compressed bytes of rc (and reports them
// to p).
func (m *meter) compressedReader(rc io.ReadCloser, p Progress) io.ReadCloser {
	return countingReader{rc, func(n int64) {
		m.compressed += n
		if p != nil {
			p.Add(n)
		}
	}}
}

// expandedReader checks the ratio and the context on every read of the
// uncompressed stream.
type expandedReader struct {
	r io.Reader
	m *meter
}

func (e expandedReader) Read(b []byte) (int, error) {
	if err := e.m.ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return 0, &LimitError{Kind: LimitTime, Max: int64(e.m.timeout)}
		}
		return 0, err
	}
	n, err := e.r.Read(b)
	m := e.m
	m.expanded += int64(n)
	if m.expanded > RatioFloor && m.expanded > m.maxRatio*max(m.compressed, 1) {
		return n, &LimitError{Kind: LimitRatio, Value: m.expanded, Max: m.maxRatio}
	}
	return n, err
}

// timeLimit turns the deadline of the image's own timeout into a
// LimitError (a cancellation by the caller stays what it is).
func timeLimit(parent context.Context, err error, ref string, l Limits) error {
	if err == nil || parent.Err() != nil || !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var le *LimitError
	if errors.As(err, &le) {
		return err
	}
	return &LimitError{Kind: LimitTime, Image: ref, Max: int64(l.Timeout)}
}

package catalogdhttp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Bounds of reading a catalog from a catalogd server: its body is input
// from the network, read whole.
const (
	// DefaultRemoteMaxBytes bounds the /all body. catalogd serves the
	// whole catalog in it; the largest public catalogs are a few hundred
	// MiB.
	DefaultRemoteMaxBytes = 4 << 30
	// DefaultRemoteMaxLine bounds one line of the body: catalogd serves
	// one blob a line, and a line is held whole while it is read. No
	// blob the registry's gRPC API could carry is larger (its messages
	// are bounded alike), and the largest real bundle blobs are a few
	// MiB.
	DefaultRemoteMaxLine = 256 << 20
	// DefaultRemoteIdle bounds the wait for the response's headers and
	// then between two reads of its body: a stalled server fails the
	// read instead of hanging it. catalogd answers at once when it has
	// the catalog (its own write timeout is 5 minutes for the whole
	// body).
	DefaultRemoteIdle = time.Minute
)

// Remote reads a catalog from catalogd's HTTP API at Base, the catalog's
// base URL (catalogd's status.urls.base: <scheme>://<host>/catalogs/<name>).
type Remote struct {
	Base string
	// Client makes the request (nil: http.DefaultClient's transport).
	Client *http.Client
	// MaxBytes bounds the body (0: DefaultRemoteMaxBytes), MaxLine one
	// line of it (0: DefaultRemoteMaxLine); Idle bounds each wait for the
	// server (0: DefaultRemoteIdle).
	MaxBytes int64
	MaxLine  int
	Idle     time.Duration
}

// Source is the Source of the catalog Remote serves: every line of
// GET <Base>/api/v1/all, in the order served, named by its line.
func (r Remote) Source() Source {
	return func(ctx context.Context, emit Emit) error {
		url := strings.TrimRight(r.Base, "/") + "/api/v1/all"
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		idle := r.Idle
		if idle <= 0 {
			idle = DefaultRemoteIdle
		}
		stalled := fmt.Errorf("GET %s: no answer from the server for %s", url, idle)
		timer := time.AfterFunc(idle, func() { cancel(stalled) })
		defer timer.Stop()
		body, err := r.get(ctx, url)
		if err != nil {
			return remoteError(ctx, err)
		}
		defer body.Close()
		max := r.MaxBytes
		if max <= 0 {
			max = DefaultRemoteMaxBytes
		}
		in := &watchdog{r: body, timer: timer, idle: idle, max: max, url: url}
		maxLine := r.MaxLine
		if maxLine <= 0 {
			maxLine = DefaultRemoteMaxLine
		}
		return remoteError(ctx, emitLines(bufio.NewReaderSize(in, 256<<10), url, maxLine, emit))
	}
}

// get makes the request and returns the body of a 200 answer.
func (r Remote) get(ctx context.Context, url string) (io.ReadCloser, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	client := r.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err // *url.Error names the method and URL
	}
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		hint := ""
		if resp.StatusCode == http.StatusNotFound {
			hint = " (catalogd answers 404 for a catalog it has not unpacked yet, and from a replica that is not the leader)"
		}
		return nil, fmt.Errorf("GET %s: %s: %q%s", url, resp.Status, bytes.TrimSpace(msg), hint)
	}
	return resp.Body, nil
}

// remoteError prefers the cause of a cancelled read (the idle bound) to
// the transport's "context canceled".
func remoteError(ctx context.Context, err error) error {
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) && ctx.Err() != nil {
		return cause
	}
	return err
}

// emitLines hands every non-empty line of r to emit, named url:line; a
// line longer than maxLine bytes is an error.
func emitLines(r *bufio.Reader, url string, maxLine int, emit Emit) error {
	for n := 1; ; n++ {
		// A new slice each line: emit may keep it.
		var line []byte
		var err error
		for {
			var part []byte
			part, err = r.ReadSlice('\n')
			if len(line)+len(part) > maxLine {
				return fmt.Errorf("read %s: line %d is longer than %d bytes", url, n, maxLine)
			}
			line = append(line, part...)
			if err != bufio.ErrBufferFull {
				break
			}
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("read %s: %w", url, err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if eerr := emit(line, url, n); eerr != nil {
				return eerr
			}
		}
		if err == io.EOF {
			return nil
		}
	}
}

// watchdog bounds what it reads to max bytes and pushes the idle timer
// back on every read that returns data.
type watchdog struct {
	r     io.Reader
	timer *time.Timer
	idle  time.Duration
	n     int64
	max   int64
	url   string
}

func (w *watchdog) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	if n > 0 {
		w.n += int64(n)
		w.timer.Reset(w.idle)
	}
	if w.n > w.max {
		return 0, fmt.Errorf("the catalog is larger than %d bytes", w.max)
	}
	return n, err
}

package image

import (
	"net/http"
	"sync"
)

// Session is what the pulls of one run share, made once by a caller that
// pulls many images (the bundle images of a template) and passed to each
// pull with WithSession, as an http.Client is shared by requests:
//
//   - its HTTP transports, so that the pulls reuse their connections: a
//     transport per pull leaves an idle connection, its buffers and two
//     goroutines behind per image pulled;
//   - the layer cache, opened once: opening it sweeps the downloads
//     killed runs left, which lists every cached blob, and once per pull
//     that is quadratic in the images a run pulls.
//
// Both are made at the first pull that needs them, with its errors, as a
// pull without a session makes its own: a run that pulls nothing reads no
// CA file and creates no cache. Close releases the idle connections.
type Session struct {
	o *options // the TLS options and cache directory it was made with

	trOnce     sync.Once
	verified   http.RoundTripper // TLS verified (with the CA file)
	unverified http.RoundTripper // WithSkipTLSVerify, registries.conf insecure
	trErr      error

	cacheOnce sync.Once
	cache     *layerCache
	cacheErr  error
}

// NewSession makes a session for pulls with the TLS options and the
// cache directory of opts (its notes receive what opening the cache
// swept).
func NewSession(opts ...Option) *Session { return &Session{o: makeOptions(opts)} }

// WithSession makes a pull share s: its transports when the pull's TLS
// options are the session's, its layer cache when the pull's cache
// directory is the session's (otherwise the pull makes its own, as
// without a session).
func WithSession(s *Session) Option { return func(o *options) { o.session = s } }

// Close closes the idle connections of the session's transports; the
// session stays usable.
func (s *Session) Close() {
	for _, tr := range []http.RoundTripper{s.verified, s.unverified} {
		if c, ok := tr.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
	}
}

// transport is the session's transport for a pull with options o; ok is
// false when o's TLS options are not the session's.
func (s *Session) transport(o *options, insecure bool) (tr http.RoundTripper, ok bool, err error) {
	if s == nil || o.skipTLSVerify != s.o.skipTLSVerify || o.caFile != s.o.caFile {
		return nil, false, nil
	}
	s.trOnce.Do(func() {
		if s.verified, s.trErr = s.o.newTransport(false); s.trErr == nil {
			s.unverified, s.trErr = s.o.newTransport(true)
		}
	})
	if insecure || o.skipTLSVerify {
		return s.unverified, true, s.trErr
	}
	return s.verified, true, s.trErr
}

// layerCache is the session's layer cache for a pull with options o; ok
// is false when o's cache directory is not the session's.
func (s *Session) layerCache(o *options) (c *layerCache, ok bool, err error) {
	if s == nil || o.cacheDir != s.o.cacheDir {
		return nil, false, nil
	}
	s.cacheOnce.Do(func() { s.cache, s.cacheErr = openLayerCache(s.o.cacheDir, s.o.note) })
	return s.cache, true, s.cacheErr
}

package image

import (
	"net/http"
	"sync"

	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Session is what the pulls of one run share, made once by a caller that
// pulls many images (the bundle images of a template) and passed to each
// pull with WithSession, as an http.Client is shared by requests:
//
//   - its HTTP transports, so that the pulls reuse their connections: a
//     transport per pull leaves an idle connection, its buffers and two
//     goroutines behind per image pulled;
//   - what a pull learns of a repository before its first request (see
//     sessionTransport), once per repository;
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
	verified   sessionTransport // TLS verified (with the CA file)
	unverified sessionTransport // WithSkipTLSVerify, registries.conf insecure
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

// Close closes the idle connections of the session's transports and
// removes the directory of its layer downloads; the session stays
// usable.
func (s *Session) Close() {
	s.cache.close()
	for _, st := range []sessionTransport{s.verified, s.unverified} {
		if c, ok := st.tr.(interface{ CloseIdleConnections() }); ok {
			c.CloseIdleConnections()
		}
	}
}

// sessionTransport is a transport and the puller of go-containerregistry
// over it: the puller keeps, per repository, what a pull learns before
// its first request (the registry's ping, its token, the credentials),
// which each pull otherwise asks for again (over plain HTTP, the ping
// tries HTTPS first, on a new connection each time).
type sessionTransport struct {
	tr     http.RoundTripper
	puller *remote.Puller
}

// newSessionTransport makes the transport and puller of the session's
// options (insecure: TLS unverified).
func (s *Session) newSessionTransport(insecure bool) (sessionTransport, error) {
	tr, err := s.o.newTransport(insecure)
	if err != nil {
		return sessionTransport{}, err
	}
	ro := []remote.Option{remote.WithTransport(tr), remote.WithAuthFromKeychain(s.o.keychain)}
	if s.o.userAgent != "" {
		ro = append(ro, remote.WithUserAgent(s.o.userAgent))
	}
	p, err := remote.NewPuller(ro...)
	return sessionTransport{tr: tr, puller: p}, err
}

// transport is the session's transport for a pull with options o; ok is
// false when o's TLS options are not the session's. The pull's keychain
// and user agent are taken to be the session's.
func (s *Session) transport(o *options, insecure bool) (st sessionTransport, ok bool, err error) {
	if s == nil || o.skipTLSVerify != s.o.skipTLSVerify || o.caFile != s.o.caFile {
		return sessionTransport{}, false, nil
	}
	s.trOnce.Do(func() {
		if s.verified, s.trErr = s.newSessionTransport(false); s.trErr == nil {
			s.unverified, s.trErr = s.newSessionTransport(true)
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

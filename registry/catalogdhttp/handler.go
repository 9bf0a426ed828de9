package catalogdhttp

import (
	"crypto/sha256"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/klauspost/compress/gzhttp"
)

// ContentType is the media type of both endpoints' bodies (JSON Lines).
const ContentType = "application/jsonl"

// Handler serves catalogd's HTTP API for one named catalog: the routes,
// status codes, headers and bodies catalogd v1.11 gives (with the metas
// feature gate on), gzip as catalogd's wrapper does, and the
// improvements MIGRATION.md lists. What it serves is the Snapshot last
// set; with none (loading, or the catalog changed and not reloaded) the
// catalog is unknown (404), as catalogd answers for a catalog it has no
// content for, and /healthz says why.
type Handler struct {
	name string
	http http.Handler

	mu      sync.RWMutex
	cur     *Snapshot
	problem error
	// last is the digest and Last-Modified of the body last served: a
	// reload with the same bytes keeps that time.
	lastSum  [sha256.Size]byte
	lastTime time.Time
}

// errLoading is /healthz's reason before the first load.
var errLoading = errors.New("the catalog is loading")

// NewHandler returns the handler of the catalog name (a DNS-1123
// subdomain, see ValidName), serving nothing until Set.
func NewHandler(name string) *Handler {
	h := &Handler{name: name, problem: errLoading}
	mux := http.NewServeMux()
	mux.HandleFunc("/catalogs/{catalog}/api/v1/all", h.all)
	mux.HandleFunc("/catalogs/{catalog}/api/v1/metas", h.metas)
	mux.HandleFunc("/healthz", h.healthz)
	// catalogd's gzhttp defaults (gzip from 1024 bytes, Vary on every
	// response, none for a Range), gzip only as catalogd's version of the
	// wrapper, and the compressed body's ETag marked as its own.
	wrap, err := gzhttp.NewWrapper(gzhttp.EnableZstd(false), gzhttp.SuffixETag(gzipSuffix))
	if err != nil {
		panic(err) // the options are constants
	}
	h.http = wrap(mux)
	return h
}

// ServeHTTP serves the API.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.http.ServeHTTP(w, r) }

// Set serves s from now on. The snapshot it replaces is closed once its
// requests are done. When s serves the bytes served last, it keeps their
// Last-Modified, so caches stay valid across a reload that changed
// nothing.
func (h *Handler) Set(s *Snapshot) {
	h.mu.Lock()
	if !h.lastTime.IsZero() && h.lastSum == s.sum {
		s.modTime = h.lastTime
	}
	h.lastSum, h.lastTime = s.sum, s.modTime
	old := h.cur
	h.cur, h.problem = s, nil
	h.mu.Unlock()
	retire(old)
}

// Unavailable stops serving the catalog (404, /healthz 503 with why)
// until the next Set.
func (h *Handler) Unavailable(why error) {
	h.mu.Lock()
	old := h.cur
	h.cur, h.problem = nil, why
	h.mu.Unlock()
	retire(old)
}

// Close stops serving and closes the snapshot served.
func (h *Handler) Close() {
	h.mu.Lock()
	old := h.cur
	h.cur = nil
	h.mu.Unlock()
	if old != nil {
		old.Close()
	}
}

// retire closes a replaced snapshot once its requests are done.
func retire(s *Snapshot) {
	if s != nil {
		go s.Close()
	}
}

// acquire returns the snapshot served, held until release (nil: none).
func (h *Handler) acquire() (*Snapshot, func()) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	s := h.cur
	if s == nil {
		return nil, func() {}
	}
	s.users.Add(1)
	return s, s.users.Done
}

// healthz is 200 "ok" while the catalog is served, 503 with the reason
// otherwise.
func (h *Handler) healthz(w http.ResponseWriter, _ *http.Request) {
	h.mu.RLock()
	problem := h.problem
	h.mu.RUnlock()
	if problem != nil {
		http.Error(w, problem.Error(), http.StatusServiceUnavailable)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

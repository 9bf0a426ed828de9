package catalogdhttp

import (
	"io"
	"net/http"
	"net/url"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// all serves /catalogs/<name>/api/v1/all with http.ServeContent, as
// catalogd does (Last-Modified, Content-Length, byte ranges, HEAD), plus
// a strong ETag that If-None-Match and If-Match compare with.
func (h *Handler) all(w http.ResponseWriter, r *http.Request) {
	if !allowedMethod(w, r) {
		return
	}
	s, release := h.lookup(w, r)
	if s == nil {
		return
	}
	defer release()
	setValidators(w, s, s.etag)
	if checkPreconditions(w, r, s.modTime) {
		return
	}
	http.ServeContent(w, withoutConditionals(r), "", s.modTime, s.Body())
}

// metas serves /catalogs/<name>/api/v1/metas: the blobs a filter on
// schema, package and name selects, streamed (no Content-Length, no
// ranges), or /all's body when the filter is empty.
func (h *Handler) metas(w http.ResponseWriter, r *http.Request) {
	if !allowedMethod(w, r) {
		return
	}
	f, ok := parseFilter(r.URL.Query())
	if !ok {
		// catalogd checks the parameters before the catalog.
		http.Error(w, "400 Bad Request", http.StatusBadRequest)
		return
	}
	s, release := h.lookup(w, r)
	if s == nil {
		return
	}
	defer release()
	etag := s.etag
	if !f.IsZero() {
		etag = s.filterETag(f)
	}
	setValidators(w, s, etag)
	if checkPreconditions(w, r, s.modTime) || r.Method == http.MethodHead {
		return
	}
	// A client that goes away ends the copy; there is no one to tell.
	if f.IsZero() {
		_, _ = io.Copy(w, s.Body())
		return
	}
	_ = s.WriteSelected(w, s.Select(f))
}

// setValidators sets a body's Content-Type, ETag and Last-Modified.
func setValidators(w http.ResponseWriter, s *Snapshot, etag string) {
	hdr := w.Header()
	hdr.Set("Content-Type", ContentType)
	hdr.Set("Etag", etag)
	hdr.Set("Last-Modified", s.modTime.UTC().Format(http.TimeFormat))
}

// allowedMethod answers 405 (without an Allow header, as catalogd) to
// anything but GET and HEAD.
func allowedMethod(w http.ResponseWriter, r *http.Request) bool {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return true
	}
	http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	return false
}

// lookup checks the catalog name of the path (400 when it is not a
// DNS-1123 subdomain, 404 when it is not this catalog or nothing is
// served) and returns the snapshot served, held until release; nil when
// it answered.
func (h *Handler) lookup(w http.ResponseWriter, r *http.Request) (*Snapshot, func()) {
	name := r.PathValue("catalog")
	if err := ValidName(name); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, nil
	}
	if name != h.name {
		http.Error(w, "404 Not Found", http.StatusNotFound)
		return nil, nil
	}
	s, release := h.acquire()
	if s == nil {
		http.Error(w, "404 Not Found", http.StatusNotFound)
	}
	return s, release
}

// parseFilter reads a /metas query: schema, package and name, each its
// first value; any other parameter, even empty, makes it invalid.
func parseFilter(q url.Values) (Filter, bool) {
	for k := range q {
		if k != "schema" && k != "package" && k != "name" {
			return Filter{}, false
		}
	}
	return Filter{Schema: q.Get("schema"), Package: q.Get("package"), Name: q.Get("name")}, true
}

// invalidNameError is a catalog name that is not a DNS-1123 subdomain,
// with catalogd's message.
type invalidNameError struct{ details []string }

func (e *invalidNameError) Error() string {
	return "invalid catalog name: " + strings.Join(e.details, ", ")
}

// ValidName checks a catalog name as catalogd does: a DNS-1123
// subdomain (a ClusterCatalog's name).
func ValidName(name string) error {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return &invalidNameError{details: errs}
	}
	return nil
}

package catalogdhttp

import (
	"net/http"
	"net/textproto"
	"strings"
	"time"
)

// gzipSuffix is what the gzip wrapper appends inside a compressed
// response's ETag (its SuffixETag option): a client that cached the
// compressed body sends it back, and it names the same content.
const gzipSuffix = "-gzip"

// conditionalHeaders are the request headers checkPreconditions answers;
// they are removed before http.ServeContent sees the request, which
// compares ETags without knowing the compressed variant (If-Range stays:
// a Range is never compressed).
var conditionalHeaders = []string{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"}

// checkPreconditions evaluates the conditional headers of a GET or HEAD
// in RFC 9110's order against the response's ETag (set in w's header)
// and Last-Modified: 412 for a failed If-Match or If-Unmodified-Since,
// 304 for a matching If-None-Match or an If-Modified-Since at or after
// modTime (whole seconds). Unlike catalogd, a date that does not parse
// is ignored (never a 500). It reports whether it answered.
func checkPreconditions(w http.ResponseWriter, r *http.Request, modTime time.Time) bool {
	etag := w.Header().Get("Etag")
	if im := r.Header.Get("If-Match"); im != "" {
		if !etagListMatches(im, etag, false) {
			w.WriteHeader(http.StatusPreconditionFailed)
			return true
		}
	} else if t, ok := parseDate(r.Header.Get("If-Unmodified-Since")); ok && modTime.After(t) {
		w.WriteHeader(http.StatusPreconditionFailed)
		return true
	}
	if inm := r.Header.Get("If-None-Match"); inm != "" {
		if etagListMatches(inm, etag, true) {
			writeNotModified(w)
			return true
		}
	} else if t, ok := parseDate(r.Header.Get("If-Modified-Since")); ok && !modTime.After(t) {
		writeNotModified(w)
		return true
	}
	return false
}

// writeNotModified answers 304 with the validators (ETag,
// Last-Modified) and no entity headers.
func writeNotModified(w http.ResponseWriter) {
	h := w.Header()
	h.Del("Content-Type")
	h.Del("Content-Length")
	w.WriteHeader(http.StatusNotModified)
}

// parseDate parses an HTTP date, truncated to seconds as Last-Modified
// is.
func parseDate(v string) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	t, err := http.ParseTime(v)
	return t, err == nil
}

// etagListMatches says whether the If-Match/If-None-Match list matches
// etag or its compressed variant; weak allows W/ tags (If-None-Match's
// weak comparison).
func etagListMatches(list, etag string, weak bool) bool {
	for _, tag := range strings.Split(list, ",") {
		tag = textproto.TrimString(tag)
		if tag == "*" {
			return true
		}
		if strings.HasPrefix(tag, "W/") {
			if !weak {
				continue
			}
			tag = tag[2:]
		}
		if tag == etag || tag == strings.TrimSuffix(etag, `"`)+gzipSuffix+`"` {
			return true
		}
	}
	return false
}

// withoutConditionals is r without the headers checkPreconditions
// answered.
func withoutConditionals(r *http.Request) *http.Request {
	r2 := r.Clone(r.Context())
	for _, h := range conditionalHeaders {
		r2.Header.Del(h)
	}
	return r2
}

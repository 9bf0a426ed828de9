package catalogdhttp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

const (
	all   = "/catalogs/deprecations/api/v1/all"
	metas = "/catalogs/deprecations/api/v1/metas"
	// longAgo is an If-Modified-Since before any load.
	longAgo = "Mon, 01 Jan 2001 00:00:00 GMT"
)

// exchanges are the golden requests asked of every fixture catalog
// (served as "deprecations" whatever its directory).
var exchanges = []exchange{
	{name: "all", method: "GET", path: all},
	{name: "all-head", method: "HEAD", path: all},
	{name: "all-gzip", method: "GET", path: all, headers: []string{"Accept-Encoding: gzip"}},
	{name: "all-head-gzip", method: "HEAD", path: all, headers: []string{"Accept-Encoding: gzip"}},
	{name: "all-range", method: "GET", path: all, headers: []string{"Range: bytes=0-99", "Accept-Encoding: gzip"}},
	{name: "all-range-beyond", method: "GET", path: all, headers: []string{"Range: bytes=99999999-"}},
	{name: "all-if-modified-since-now", method: "GET", path: all, headers: []string{"If-Modified-Since: {lastmod}"}},
	{name: "all-if-modified-since-long-ago", method: "GET", path: all, headers: []string{"If-Modified-Since: " + longAgo}},
	{name: "all-if-modified-since-malformed", method: "GET", path: all, headers: []string{"If-Modified-Since: yesterday"}},
	{name: "all-if-unmodified-since-long-ago", method: "GET", path: all, headers: []string{"If-Unmodified-Since: " + longAgo}},
	{name: "all-if-none-match-etag", method: "GET", path: all, headers: []string{"If-None-Match: {etag}"}},
	{name: "all-if-none-match-gzip-etag", method: "GET", path: all, headers: []string{"If-None-Match: {gzetag}", "Accept-Encoding: gzip"}},
	{name: "all-if-none-match-star", method: "GET", path: all, headers: []string{"If-None-Match: *"}},
	{name: "all-if-none-match-other", method: "HEAD", path: all, headers: []string{`If-None-Match: "other"`, "If-Modified-Since: {lastmod}"}},
	{name: "all-if-match-other", method: "GET", path: all, headers: []string{`If-Match: "other"`}},
	{name: "all-post", method: "POST", path: all},
	{name: "metas-none", method: "GET", path: metas},
	{name: "metas-all-empty", method: "GET", path: metas + "?schema=&package=&name="},
	{name: "metas-schema-package", method: "GET", path: metas + "?schema=olm.package"},
	{name: "metas-package", method: "GET", path: metas + "?package=cool"},
	{name: "metas-package-blob", method: "GET", path: metas + "?schema=olm.package&name=cool"},
	{name: "metas-and", method: "GET", path: metas + "?schema=olm.channel&package=cool&name=stable"},
	{name: "metas-name-any-package", method: "GET", path: metas + "?name=stable"},
	{name: "metas-repeated-first", method: "GET", path: metas + "?package=&package=cool"},
	{name: "metas-repeated-same", method: "GET", path: metas + "?schema=olm.package&&schema=olm.package"},
	{name: "metas-no-match", method: "GET", path: metas + "?package=nope"},
	{name: "metas-case-sensitive", method: "GET", path: metas + "?schema=OLM.PACKAGE"},
	{name: "metas-range-ignored", method: "GET", path: metas + "?schema=olm.package", headers: []string{"Range: bytes=0-9"}},
	{name: "metas-gzip", method: "GET", path: metas + "?schema=olm.bundle", headers: []string{"Accept-Encoding: gzip"}},
	{name: "metas-head", method: "HEAD", path: metas + "?package=cool"},
	{name: "metas-if-none-match", method: "GET", path: metas + "?package=cool", headers: []string{"If-None-Match: {metasetag}"}},
	{name: "metas-if-modified-since", method: "GET", path: metas + "?package=cool", headers: []string{"If-Modified-Since: {lastmod}"}},
	{name: "metas-if-modified-since-malformed", method: "GET", path: metas + "?package=cool", headers: []string{"If-Modified-Since: yesterday"}},
	{name: "metas-if-match-other", method: "GET", path: metas + "?package=cool", headers: []string{`If-Match: "other"`}},
	{name: "metas-bad-parameter", method: "GET", path: metas + "?schema=olm.package&version=1"},
	{name: "metas-bad-parameter-empty", method: "GET", path: metas + "?foo="},
	{name: "metas-bad-parameter-unknown-catalog", method: "GET", path: "/catalogs/unknown/api/v1/metas?foo=1"},
	{name: "metas-post", method: "POST", path: metas},
	{name: "unknown-catalog", method: "GET", path: "/catalogs/unknown/api/v1/all"},
	{name: "unknown-catalog-post", method: "PUT", path: "/catalogs/unknown/api/v1/all"},
	{name: "invalid-name", method: "GET", path: "/catalogs/Bad_Name/api/v1/all"},
	{name: "trailing-slash", method: "GET", path: all + "/"},
	{name: "catalog-jsonl", method: "GET", path: "/catalogs/deprecations.jsonl"},
	{name: "catalogs-root", method: "GET", path: "/catalogs/"},
	{name: "graphql", method: "POST", path: "/catalogs/deprecations/api/v1/graphql"},
	{name: "healthz", method: "GET", path: "/healthz"},
}

// TestGoldenExchanges asks each fixture catalog the golden requests over
// loopback TCP and compares status, headers and body with testdata.
func TestGoldenExchanges(t *testing.T) {
	for _, fx := range []struct{ name, dir string }{
		{"deprecations", "../declcfgquery/testdata/deprecations"},
		{"small-fbb", "../../fixtures/legacy/small-fbb/opm-migrate"},
	} {
		t.Run(fx.name, func(t *testing.T) {
			s := startServer(t, "deprecations", catalogdhttp.DirSource(fx.dir))
			head, _ := s.do(t, "HEAD", all, nil)
			lastMod, etag := head.Header.Get("Last-Modified"), head.Header.Get("Etag")
			mhead, _ := s.do(t, "HEAD", metas+"?package=cool", nil)
			subst := strings.NewReplacer("{lastmod}", lastMod, "{etag}", etag,
				"{gzetag}", strings.TrimSuffix(etag, `"`)+`-gzip"`, "{metasetag}", mhead.Header.Get("Etag"))
			for _, ex := range exchanges {
				t.Run(ex.name, func(t *testing.T) {
					headers := make([]string, len(ex.headers))
					for i, h := range ex.headers {
						headers[i] = subst.Replace(h)
					}
					resp, body := s.do(t, ex.method, ex.path, headers)
					golden(t, fx.name+"/"+ex.name+".txt", transcript(t, ex, resp, body, lastMod))
				})
			}
		})
	}
}

// TestMetasNoParametersIsAll: a metas query without a filter answers
// exactly /all's body.
func TestMetasNoParametersIsAll(t *testing.T) {
	s := startServer(t, "deprecations", catalogdhttp.DirSource("../declcfgquery/testdata/deprecations"))
	_, want := s.do(t, "GET", all, nil)
	for _, q := range []string{"", "?schema=", "?schema=&package=&name=", "?package=&package=cool"} {
		resp, got := s.do(t, "GET", metas+q, nil)
		require.Equal(t, http.StatusOK, resp.StatusCode, q)
		require.Equal(t, string(want), string(got), q)
	}
}

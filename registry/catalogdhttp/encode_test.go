package catalogdhttp_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// TestEncode: each blob is re-encoded as catalogd does (§5 of the OLM v1
// reference).
func TestEncode(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		keys           catalogdhttp.Keys
	}{
		{"keys sorted at every level", `{"schema":"s","b":{"z":1,"a":[{"y":1,"x":2}]},"a":0}`, `{"a":0,"b":{"a":[{"x":2,"y":1}],"z":1},"schema":"s"}`, catalogdhttp.Keys{Schema: "s"}},
		{"compact", "{ \"schema\" : \"s\" ,\n \"v\" : [ 1 , 2 ] }", `{"schema":"s","v":[1,2]}`, catalogdhttp.Keys{Schema: "s"}},
		{"1.0", `{"v":1.0}`, `{"v":1}`, catalogdhttp.Keys{}},
		{"1e3", `{"v":1e3}`, `{"v":1000}`, catalogdhttp.Keys{}},
		{"big integer through float64", `{"v":12345678901234567890}`, `{"v":12345678901234567000}`, catalogdhttp.Keys{}},
		{"negative zero", `{"v":-0.0}`, `{"v":-0}`, catalogdhttp.Keys{}},
		{"small float", `{"v":0.000001}`, `{"v":0.000001}`, catalogdhttp.Keys{}},
		{"html characters stay raw", `{"v":"<a href=\"x\">&amp;</a>"}`, `{"v":"<a href=\"x\">&amp;</a>"}`, catalogdhttp.Keys{}},
		{"escaped html characters come out raw", `{"v":"\u003c\u0026\u003e"}`, `{"v":"<&>"}`, catalogdhttp.Keys{}},
		{"line and paragraph separators escaped", "{\"v\":\"a\u2028b\u2029c\"}", `{"v":"a\u2028b\u2029c"}`, catalogdhttp.Keys{}},
		{"non-ASCII letters stay raw", `{"v":"caf\u00e9 ünïcödé"}`, `{"v":"café ünïcödé"}`, catalogdhttp.Keys{}},
		{"invalid UTF-8 replaced", "{\"v\":\"a\xffb\"}", "{\"v\":\"a\ufffdb\"}", catalogdhttp.Keys{}},
		{"keys any case", `{"Schema":"s","PACKAGE":"p","nAmE":"n"}`, `{"PACKAGE":"p","Schema":"s","nAmE":"n"}`, catalogdhttp.Keys{Schema: "s", Package: "p", Name: "n"}},
		{"duplicate key keeps the last", `{"schema":"a","schema":"b"}`, `{"schema":"b"}`, catalogdhttp.Keys{Schema: "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, keys, err := catalogdhttp.Encode([]byte(tc.in))
			require.NoError(t, err)
			require.Equal(t, tc.want+"\n", string(got))
			require.Equal(t, tc.keys, keys)
		})
	}
}

func TestEncodeRefuses(t *testing.T) {
	for _, tc := range []struct{ name, in, err string }{
		{"keys differing in case", `{"schema":"s","Schema":"t"}`, `duplicate keys "Schema" and "schema"`},
		{"other keys differing in case", `{"schema":"s","foo":1,"FOO":2}`, `duplicate keys "FOO" and "foo"`},
		{"schema not a string", `{"schema":1}`, `key "schema": must be a string`},
		{"package not a string", `{"schema":"s","package":null}`, `key "package": must be a string`},
		{"not an object", `[1]`, "decode blob"},
		{"null", `null`, "not a JSON object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := catalogdhttp.Encode([]byte(tc.in))
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// TestServedOrderAndYAML: blobs in catalogd's walk order (depth first,
// entries sorted bytewise, document order in a file, .indexignore
// honoured), YAML served as JSON, schema-less blobs served by /all only.
func TestServedOrderAndYAML(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"a/catalog.yaml":   "schema: a\nnum: 1\n---\nschema: a\nnum: 2\nhex: 0x10\nflag: yes\nempty:\n",
		"a-b/catalog.json": `{"schema":"ab"}{"schema":"ab","n":2}`,
		"B/catalog.json":   `{"schema":"B","package":"p"}`,
		"a/z.json":         `{"n":"no schema","package":"p"}`,
		"ignored/x.json":   `{"schema":"ignored"}`,
		".indexignore":     "ignored\n",
		"README.md":        "not a catalog",
	})
	s := startServer(t, "c", catalogdhttp.DirSource(dir))
	_, body := s.do(t, "GET", "/catalogs/c/api/v1/all", nil)
	require.Equal(t, `{"package":"p","schema":"B"}
{"num":1,"schema":"a"}
{"empty":null,"flag":true,"hex":16,"num":2,"schema":"a"}
{"n":"no schema","package":"p"}
{"schema":"ab"}
{"n":2,"schema":"ab"}
`, string(body))
	_, body = s.do(t, "GET", "/catalogs/c/api/v1/metas?package=p", nil)
	require.Equal(t, `{"package":"p","schema":"B"}`+"\n", string(body), "a blob without a schema is in no filtered result")
}

// TestGzipThreshold: a body of 1024 bytes or more is compressed when the
// client accepts gzip, 1023 is not, on both endpoints.
func TestGzipThreshold(t *testing.T) {
	for _, tc := range []struct {
		size int
		gzip bool
	}{{1023, false}, {1024, true}} {
		t.Run(fmt.Sprint(tc.size), func(t *testing.T) {
			blob := `{"pad":"","schema":"s"}`
			blob = strings.Replace(blob, `""`, `"`+strings.Repeat("x", tc.size-len(blob)-1)+`"`, 1)
			s := startServer(t, "c", catalogdhttp.DirSource(writeFiles(t, map[string]string{"c.json": blob})))
			for _, path := range []string{"/catalogs/c/api/v1/all", "/catalogs/c/api/v1/metas?schema=s"} {
				resp, _ := s.do(t, "GET", path, []string{"Accept-Encoding: gzip"})
				require.Equal(t, http.StatusOK, resp.StatusCode)
				require.Equal(t, tc.gzip, resp.Header.Get("Content-Encoding") == "gzip", path)
				require.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"))
				if !tc.gzip {
					require.Equal(t, int64(tc.size), resp.ContentLength, path)
				}
				if strings.HasSuffix(path, "/all") {
					require.Equal(t, !tc.gzip, resp.Header.Get("Accept-Ranges") == "bytes", path)
				}
			}
		})
	}
}

// TestSetKeepsLastModified: a reload that serves the same bytes keeps
// Last-Modified; one that changes them moves it.
func TestSetKeepsLastModified(t *testing.T) {
	ctx := context.Background()
	dir := writeFiles(t, map[string]string{"c.json": `{"schema":"s"}`})
	h := catalogdhttp.NewHandler("c")
	t.Cleanup(h.Close)
	first, err := catalogdhttp.Build(ctx, t.TempDir(), catalogdhttp.DirSource(dir))
	require.NoError(t, err)
	h.Set(first)
	time.Sleep(1100 * time.Millisecond) // Last-Modified has whole seconds
	same, err := catalogdhttp.Build(ctx, t.TempDir(), catalogdhttp.DirSource(dir))
	require.NoError(t, err)
	require.NotEqual(t, first.ModTime(), same.ModTime())
	h.Set(same)
	require.Equal(t, first.ModTime(), same.ModTime())
	require.Equal(t, first.ETag(), same.ETag())
	changed, err := catalogdhttp.Build(ctx, t.TempDir(), catalogdhttp.DirSource(writeFiles(t, map[string]string{"c.json": `{"schema":"t"}`})))
	require.NoError(t, err)
	h.Set(changed)
	require.NotEqual(t, first.ModTime(), changed.ModTime())
	require.NotEqual(t, first.ETag(), changed.ETag())
}

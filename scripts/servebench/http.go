package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strconv"
	"time"
)

// benchCatalog is the catalog's name in the URLs of the catalogd HTTP API
// the server is asked to serve (-http).
const benchCatalog = "bench"

// httpOpts is the catalogd HTTP API a server also serves (olmcat serve
// --http), and what is measured on it.
type httpOpts struct {
	serve  bool // append --http and --catalog-name to the server command
	noGRPC bool // append -p -1: the catalogd HTTP API only
	bench  bool // measure the times to first byte and transfers (httpBench)
}

// httpAPI is where the server answers the catalogd HTTP API.
type httpAPI struct {
	root string // http://127.0.0.1:PORT
	v1   string // root/catalogs/bench/api/v1
}

// httpArgs are the server's flags serving the API on a free port.
func httpArgs() ([]string, httpAPI, error) {
	port, err := freePort()
	if err != nil {
		return nil, httpAPI{}, err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	api := httpAPI{root: "http://" + addr, v1: "http://" + addr + "/catalogs/" + benchCatalog + "/api/v1"}
	return []string{"--http", addr, "--catalog-name", benchCatalog}, api, nil
}

// newClient is an HTTP client with connections of its own that asks for
// gzip only when a request says so.
func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: 4}}
}

// waitHealthz polls /healthz until it answers 200 and returns the time
// since start.
func waitHealthz(api httpAPI, start time.Time, timeout time.Duration, exited <-chan struct{}) (time.Duration, error) {
	c := newClient()
	defer c.CloseIdleConnections()
	for {
		resp, err := c.Get(api.root + "/healthz")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return time.Since(start), nil
			}
		}
		select {
		case <-exited:
			return 0, errors.New("server exited before /healthz answered 200")
		case <-time.After(5 * time.Millisecond):
		}
		if time.Since(start) > timeout {
			return 0, errors.New("/healthz not 200 before the timeout")
		}
	}
}

// timedGet is one timed request: its status, its time to first byte
// (the response's first byte) and to the end of the body, and the bytes
// of the body as sent (compressed when gzip).
type timedGet struct {
	status         int
	gzip           bool
	ttfb, total    time.Duration
	bytes          int64
	etag, modified string
}

// get sends GET u, with the headers given as key, value pairs, reads the
// whole body (into keep when not nil) and times it.
func get(ctx context.Context, c *http.Client, u string, keep io.Writer, headers ...string) (timedGet, error) {
	var g timedGet
	start := time.Now()
	trace := &httptrace.ClientTrace{GotFirstResponseByte: func() { g.ttfb = time.Since(start) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodGet, u, nil)
	if err != nil {
		return g, err
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		return g, err
	}
	defer resp.Body.Close()
	if keep == nil {
		keep = io.Discard
	}
	g.bytes, err = io.Copy(keep, resp.Body)
	g.total = time.Since(start)
	g.status, g.gzip = resp.StatusCode, resp.Header.Get("Content-Encoding") == "gzip"
	g.etag, g.modified = resp.Header.Get("Etag"), resp.Header.Get("Last-Modified")
	return g, err
}

// packageNames reads the names of the olm.package blobs of a metas body.
func packageNames(body io.Reader) ([]string, error) {
	var names []string
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var b struct{ Name string }
		if err := json.Unmarshal(sc.Bytes(), &b); err != nil {
			return nil, err
		}
		names = append(names, b.Name)
	}
	return names, sc.Err()
}

// metasURL is the /metas URL of one filter parameter.
func (a httpAPI) metasURL(key, value string) string {
	return a.v1 + "/metas?" + url.Values{key: {value}}.Encode()
}

// httpBench is what -http-bench measures once /healthz is 200.
type httpBench struct {
	all, allGzip, pkgs, pkg timedGet
	pkgName                 string
}

// runHTTPBench times, one request at a time on a fresh connection, the
// first byte of /all, of a schema=olm.package query and of a query of
// one package (the middle one of that list), and the whole /all body
// with and without gzip.
func runHTTPBench(api httpAPI) (httpBench, error) {
	var b httpBench
	ctx := context.Background()
	var err error
	if b.all, err = get(ctx, newClient(), api.v1+"/all", nil); err != nil {
		return b, fmt.Errorf("/all: %w", err)
	}
	var names bytes.Buffer
	if b.pkgs, err = get(ctx, newClient(), api.metasURL("schema", "olm.package"), &names); err != nil {
		return b, fmt.Errorf("metas schema=olm.package: %w", err)
	}
	list, err := packageNames(&names)
	if err != nil || len(list) == 0 {
		return b, fmt.Errorf("metas schema=olm.package: %d packages, %v", len(list), err)
	}
	b.pkgName = list[len(list)/2]
	if b.pkg, err = get(ctx, newClient(), api.metasURL("package", b.pkgName), nil); err != nil {
		return b, fmt.Errorf("metas package=%s: %w", b.pkgName, err)
	}
	if b.allGzip, err = get(ctx, newClient(), api.v1+"/all", nil, "Accept-Encoding", "gzip"); err != nil {
		return b, fmt.Errorf("/all gzip: %w", err)
	}
	for _, g := range []timedGet{b.all, b.allGzip, b.pkgs, b.pkg} {
		if g.status != http.StatusOK {
			return b, fmt.Errorf("status %d", g.status)
		}
	}
	if !b.allGzip.gzip {
		return b, errors.New("/all with Accept-Encoding: gzip was not compressed")
	}
	return b, nil
}

// printHTTPBench prints the benchmark's line.
func printHTTPBench(ready time.Duration, hwmReady int64, b httpBench, hwm int64) {
	fmt.Printf("healthz %.3f s, peak RSS at ready %d MB; TTFB /all %.1f ms, metas?package=%s %.1f ms (%d bytes), metas?schema=olm.package %.1f ms (%d bytes); "+
		"/all %d bytes in %.3f s, gzip %d bytes in %.3f s; peak RSS after %d MB\n",
		ready.Seconds(), hwmReady/1024, ms(b.all.ttfb), b.pkgName, ms(b.pkg.ttfb), b.pkg.bytes, ms(b.pkgs.ttfb), b.pkgs.bytes,
		b.all.bytes, b.all.total.Seconds(), b.allGzip.bytes, b.allGzip.total.Seconds(), hwm/1024)
}

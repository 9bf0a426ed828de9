package main

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"
)

// httpEndpoint is one kind of request of the HTTP load and the clients
// that send it, each on connections of its own.
type httpEndpoint struct {
	name    string
	urls    []string // sent round robin
	headers []string // key, value pairs
	status  int
	gzip    bool  // the answer must be gzip-encoded
	size    int64 // the body's bytes as sent; 0: any non-empty body, -1: empty
	clients int
}

// httpResult is one endpoint's requests, errors (a transport error or an
// answer not as expected) and latencies (to the end of the body).
type httpResult struct {
	name        string
	clients     int
	count, errs int
	firstErr    error
	p50, p99    time.Duration
}

// httpMix splits the clients over the requests a catalogd client and a
// cache in front of it send: a tenth each fetch /all whole, with and
// without gzip, a fifth revalidate /all (If-None-Match, If-Modified-Since:
// 304), and the rest query /metas by package, round robin over all of
// them.
func httpMix(clients int, api httpAPI, all timedGet, pkgs []string) []httpEndpoint {
	whole := max(1, clients/10)
	cond := max(1, clients/5)
	metas := make([]string, len(pkgs))
	for i, p := range pkgs {
		metas[i] = api.metasURL("package", p)
	}
	return []httpEndpoint{
		{name: "GET /all", urls: []string{api.v1 + "/all"}, status: http.StatusOK, size: all.bytes, clients: whole},
		{name: "GET /all gzip", urls: []string{api.v1 + "/all"}, headers: []string{"Accept-Encoding", "gzip"}, status: http.StatusOK, gzip: true, clients: whole},
		{name: "GET /all If-None-Match", urls: []string{api.v1 + "/all"}, headers: []string{"If-None-Match", all.etag}, status: http.StatusNotModified, size: -1, clients: (cond + 1) / 2},
		{name: "GET /all If-Modified-Since", urls: []string{api.v1 + "/all"}, headers: []string{"If-Modified-Since", all.modified}, status: http.StatusNotModified, size: -1, clients: max(1, cond/2)},
		{name: "GET /metas?package=<each>", urls: metas, status: http.StatusOK, clients: max(1, clients-2*whole-cond)},
	}
}

// runHTTPLoad reads /all and the package names once, then runs the mix
// for the load's duration and returns each endpoint's result.
func runHTTPLoad(api httpAPI, l load) ([]httpResult, error) {
	ctx := context.Background()
	all, err := get(ctx, newClient(), api.v1+"/all", nil)
	if err != nil || all.status != http.StatusOK {
		return nil, fmt.Errorf("/all: %d, %v", all.status, err)
	}
	var names bytes.Buffer
	if _, err := get(ctx, newClient(), api.metasURL("schema", "olm.package"), &names); err != nil {
		return nil, fmt.Errorf("metas schema=olm.package: %w", err)
	}
	pkgs, err := packageNames(&names)
	if err != nil || len(pkgs) == 0 {
		return nil, fmt.Errorf("metas schema=olm.package: %d packages, %v", len(pkgs), err)
	}
	mix := httpMix(l.clients, api, all, pkgs)
	results := make([]httpResult, len(mix))
	deadline := time.Now().Add(l.duration)
	var wg sync.WaitGroup
	for i, e := range mix {
		wg.Go(func() { results[i] = runEndpoint(e, deadline) })
	}
	wg.Wait()
	return results, nil
}

// runEndpoint runs e's clients until deadline (a request in flight
// then finishes) and gathers their requests.
func runEndpoint(e httpEndpoint, deadline time.Time) httpResult {
	res := httpResult{name: e.name, clients: e.clients}
	var mu sync.Mutex
	var lat []time.Duration
	var wg sync.WaitGroup
	for c := range e.clients {
		wg.Go(func() {
			client := newClient()
			defer client.CloseIdleConnections()
			for n := c; time.Now().Before(deadline); n++ {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				g, err := get(ctx, client, e.urls[n%len(e.urls)], nil, e.headers...)
				cancel()
				if err == nil {
					err = e.check(g)
				}
				mu.Lock()
				res.count++
				lat = append(lat, g.total)
				if err != nil {
					res.errs++
					res.firstErr = cmp.Or(res.firstErr, err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	slices.Sort(lat)
	if len(lat) > 0 {
		res.p50, res.p99 = lat[len(lat)*50/100], lat[min(len(lat)-1, len(lat)*99/100)]
	}
	return res
}

// check tells how an answer differs from the one e expects.
func (e httpEndpoint) check(g timedGet) error {
	switch {
	case g.status != e.status:
		return fmt.Errorf("status %d, want %d", g.status, e.status)
	case g.gzip != e.gzip:
		return fmt.Errorf("gzip-encoded %v, want %v", g.gzip, e.gzip)
	case e.size > 0 && g.bytes != e.size, e.size < 0 && g.bytes != 0, e.size == 0 && g.bytes == 0:
		return fmt.Errorf("a body of %d bytes, want %d", g.bytes, max(e.size, 0))
	}
	return nil
}

// printHTTPLoad prints one line per endpoint (and its first error) and
// the totals, and returns an error when any request failed.
func printHTTPLoad(results []httpResult) error {
	reqs, errs := 0, 0
	for _, r := range results {
		fmt.Printf("  HTTP %-31s %3d clients %7d reqs  %4d errors  p50 %8.2f ms  p99 %8.2f ms\n",
			r.name, r.clients, r.count, r.errs, ms(r.p50), ms(r.p99))
		if r.firstErr != nil {
			fmt.Printf("    first error: %v\n", r.firstErr)
		}
		reqs += r.count
		errs += r.errs
	}
	fmt.Printf("  HTTP total %d requests, %d errors\n", reqs, errs)
	if errs > 0 {
		return fmt.Errorf("%d HTTP requests failed", errs)
	}
	return nil
}

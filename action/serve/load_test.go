package serve_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/action/serve"
	"github.com/operator-catalog/olmcat/registry/api"
)

// httpCheck is one request of the load: what is sent and the status it
// must get.
type httpCheck struct {
	name    string
	method  string
	url     string
	headers []string // "Key: value"
	status  int
	gzip    bool // the answer must be gzip-encoded
	// part is the body expected, from /all's (whole, empty, a range);
	// nil: any body that is not empty (a /metas answer, an error).
	part func(all []byte) []byte
}

// whole and empty are the parts of /all's body a request answers with.
func whole(all []byte) []byte { return all }
func empty([]byte) []byte     { return nil }

// answer is a response as compared across clients: its status and its
// body, decompressed.
type answer struct {
	status int
	body   []byte
}

// fetch sends c with client and returns its answer, checking the
// encoding c asks for.
func fetch(ctx context.Context, client *http.Client, c httpCheck) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, c.method, c.url, nil)
	if err != nil {
		return answer{}, err
	}
	for _, h := range c.headers {
		k, v, _ := strings.Cut(h, ": ")
		req.Header.Add(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	var body io.Reader = resp.Body
	if gz := resp.Header.Get("Content-Encoding") == "gzip"; gz != c.gzip {
		return answer{}, fmt.Errorf("%s: gzip-encoded %v, want %v", c.name, gz, c.gzip)
	} else if gz {
		if body, err = gzip.NewReader(resp.Body); err != nil {
			return answer{}, fmt.Errorf("%s: %w", c.name, err)
		}
	}
	data, err := io.ReadAll(body)
	if err != nil {
		return answer{}, fmt.Errorf("%s: %w", c.name, err)
	}
	if resp.StatusCode != c.status {
		return answer{}, fmt.Errorf("%s: status %d, want %d", c.name, resp.StatusCode, c.status)
	}
	return answer{status: resp.StatusCode, body: data}, nil
}

// newHTTPClient is a client with connections of its own that asks for
// gzip only when a check does.
func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableCompression: true}}
}

// httpChecks are the requests of the load against the /all URL all:
// whole and gzip bodies, ranges, HEAD, conditional requests and metas
// queries, with the answer each gets from a single client, checked
// against /all's body where it is a part of it.
func httpChecks(t *testing.T, all string) ([]httpCheck, []answer) {
	t.Helper()
	client := newHTTPClient()
	defer client.CloseIdleConnections()
	resp, err := client.Get(all)
	require.NoError(t, err)
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Greater(t, len(body), 2048, "the fixture is big enough for gzip and ranges")
	etag, lastMod := resp.Header.Get("Etag"), resp.Header.Get("Last-Modified")
	metas := strings.TrimSuffix(all, "/all") + "/metas"
	checks := []httpCheck{
		{name: "all", url: all, status: http.StatusOK, part: whole},
		{name: "all gzip", url: all, headers: []string{"Accept-Encoding: gzip"}, status: http.StatusOK, gzip: true, part: whole},
		{name: "all range", url: all, headers: []string{"Range: bytes=100-1099"}, status: http.StatusPartialContent,
			part: func(all []byte) []byte { return all[100:1100] }},
		// A range is never compressed, even when gzip is accepted.
		{name: "all suffix range", url: all, headers: []string{"Range: bytes=-50", "Accept-Encoding: gzip"}, status: http.StatusPartialContent,
			part: func(all []byte) []byte { return all[len(all)-50:] }},
		{name: "all head", method: http.MethodHead, url: all, status: http.StatusOK, part: empty},
		{name: "all if-none-match", url: all, headers: []string{"If-None-Match: " + etag}, status: http.StatusNotModified, part: empty},
		{name: "all if-modified-since", url: all, headers: []string{"If-Modified-Since: " + lastMod}, status: http.StatusNotModified, part: empty},
		{name: "all if-none-match other", url: all, headers: []string{`If-None-Match: "other"`}, status: http.StatusOK, part: whole},
		{name: "metas package", url: metas + "?package=foo", status: http.StatusOK},
		{name: "metas schema gzip", url: metas + "?schema=olm.bundle", headers: []string{"Accept-Encoding: gzip"}, status: http.StatusOK, gzip: true},
		{name: "metas and", url: metas + "?schema=olm.package&name=bar", status: http.StatusOK},
		{name: "metas none", url: metas + "?package=none", status: http.StatusOK, part: empty},
		{name: "metas bad parameter", url: metas + "?version=1", status: http.StatusBadRequest},
	}
	want := make([]answer, len(checks))
	for i, c := range checks {
		want[i], err = fetch(context.Background(), client, c)
		require.NoError(t, err)
		if c.part != nil {
			assert.Equal(t, string(c.part(body)), string(want[i].body), c.name)
		} else {
			assert.NotEmpty(t, want[i].body, c.name)
		}
	}
	return checks, want
}

// grpcAnswers calls GetPackage, ListBundles and GetBundle on conn and
// returns the answers, in order.
func grpcAnswers(ctx context.Context, conn *grpc.ClientConn) ([]proto.Message, error) {
	c := api.NewRegistryClient(conn)
	p, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: "foo"})
	if err != nil {
		return nil, fmt.Errorf("GetPackage: %w", err)
	}
	b, err := c.GetBundle(ctx, &api.GetBundleRequest{PkgName: "foo", ChannelName: "beta", CsvName: "foo.v0.3.1"})
	if err != nil {
		return nil, fmt.Errorf("GetBundle: %w", err)
	}
	got := []proto.Message{p, b}
	stream, err := c.ListBundles(ctx, &api.ListBundlesRequest{})
	if err != nil {
		return nil, fmt.Errorf("ListBundles: %w", err)
	}
	for {
		b, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return nil, fmt.Errorf("ListBundles: %w", err)
		}
		got = append(got, b)
	}
}

// sameAnswers tells how got differs from want ("" when it does not).
func sameAnswers(want, got []proto.Message) error {
	if len(got) != len(want) {
		return fmt.Errorf("%d answers, want %d", len(got), len(want))
	}
	for i := range want {
		if !proto.Equal(want[i], got[i]) {
			return fmt.Errorf("answer %d: %v, want %v", i, got[i], want[i])
		}
	}
	return nil
}

// TestServeBothAPIsUnderLoad serves one catalog on both APIs over
// loopback TCP and drives concurrent HTTP clients (every kind of request
// /all and /metas answer) at the same time as concurrent gRPC clients,
// each on connections of its own: every answer must be the one a single
// client gets (run it with -race).
func TestServeBothAPIsUnderLoad(t *testing.T) {
	all, grpcAddr := startBoth(t, serve.Serve{Catalog: smallCatalog, CatalogName: "small"})
	_, port, err := net.SplitHostPort(grpcAddr)
	require.NoError(t, err)
	dial := func() (*grpc.ClientConn, error) {
		return grpc.NewClient(net.JoinHostPort("127.0.0.1", port), grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	checks, wantHTTP := httpChecks(t, all)
	conn, err := dial()
	require.NoError(t, err)
	wantGRPC, err := grpcAnswers(ctx, conn)
	conn.Close()
	require.NoError(t, err)
	require.Greater(t, len(wantGRPC), 2)

	// Small enough for two CI cores under -race, enough to overlap.
	const httpClients, grpcClients, rounds = 12, 6, 3
	errs := make(chan error, httpClients+grpcClients)
	var wg sync.WaitGroup
	for i := range httpClients {
		wg.Go(func() {
			client := newHTTPClient()
			defer client.CloseIdleConnections()
			for r := range rounds * len(checks) {
				// Each client starts at another check: every kind of
				// request is in flight at once.
				c := (i + r) % len(checks)
				got, err := fetch(ctx, client, checks[c])
				if err == nil && !bytes.Equal(got.body, wantHTTP[c].body) {
					err = fmt.Errorf("%s: a body of %d bytes, not the single client's %d", checks[c].name, len(got.body), len(wantHTTP[c].body))
				}
				if err != nil {
					errs <- fmt.Errorf("HTTP client %d: %w", i, err)
					return
				}
			}
		})
	}
	for i := range grpcClients {
		wg.Go(func() {
			conn, err := dial()
			if err == nil {
				defer conn.Close()
			}
			for range rounds {
				var got []proto.Message
				if err == nil {
					got, err = grpcAnswers(ctx, conn)
				}
				if err == nil {
					err = sameAnswers(wantGRPC, got)
				}
				if err != nil {
					errs <- fmt.Errorf("gRPC client %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		assert.NoError(t, err)
	}
}

package main

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/operator-catalog/olmcat/registry/api"
)

// watchProbe calls a served catalog all the time (ListBundles and
// GetPackage of the package being added) and keeps a health Watch
// stream open, recording every answer.
type watchProbe struct {
	mu       sync.Mutex
	statuses []healthgrpc.HealthCheckResponse_ServingStatus
	lists    []string // each complete ListBundles answer, as its sorted entries
	bad      []string // answers that are neither a whole catalog nor Unavailable
}

func (p *watchProbe) record(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
}

// listBundles is one whole ListBundles answer as sorted
// "package/channel/bundle" lines.
func listBundles(ctx context.Context, c api.RegistryClient) (string, error) {
	stream, err := c.ListBundles(ctx, &api.ListBundlesRequest{})
	if err != nil {
		return "", err
	}
	var lines []string
	for {
		b, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			sort.Strings(lines)
			return strings.Join(lines, "\n"), nil
		}
		if err != nil {
			return "", err
		}
		lines = append(lines, b.GetPackageName()+"/"+b.GetChannelName()+"/"+b.GetCsvName())
	}
}

// run probes until ctx is done.
func (p *watchProbe) run(ctx context.Context, t *testing.T, s *servedCmd) {
	c := api.NewRegistryClient(s.conn)
	var wg sync.WaitGroup
	wg.Go(func() {
		w, err := healthgrpc.NewHealthClient(s.conn).Watch(ctx, &healthgrpc.HealthCheckRequest{})
		if !assert.NoError(t, err) {
			return
		}
		for {
			resp, err := w.Recv()
			if err != nil {
				return
			}
			p.record(func() { p.statuses = append(p.statuses, resp.GetStatus()) })
		}
	})
	wg.Go(func() {
		for ctx.Err() == nil {
			list, err := listBundles(ctx, c)
			if ctx.Err() != nil {
				return
			}
			_, pkgErr := c.GetPackage(ctx, &api.GetPackageRequest{Name: "couchdb-operator"})
			if ctx.Err() != nil {
				return
			}
			p.record(func() {
				switch {
				case err == nil:
					p.lists = append(p.lists, list)
				case status.Code(err) != codes.Unavailable:
					p.bad = append(p.bad, "ListBundles: "+err.Error())
				}
				// Before the add the package is not found (Unknown, as
				// upstream says it); after, it is there; between, Unavailable.
				if c := status.Code(pkgErr); pkgErr != nil && c != codes.Unavailable && !strings.Contains(pkgErr.Error(), "not found") {
					p.bad = append(p.bad, "GetPackage: "+pkgErr.Error())
				}
			})
		}
	})
	wg.Wait()
}

// TestServeWatchesAddedBundle adds a bundle with the real binary into a
// directory being served while a client calls it all the time and a
// health Watch stream runs: health goes NOT_SERVING, and with --reload
// SERVING again with the new package; every complete ListBundles answer
// is the whole old or the whole new catalog, every other answer is
// Unavailable.
func TestServeWatchesAddedBundle(t *testing.T) {
	bin := buildBinary(t)
	for _, reload := range []bool{true, false} {
		t.Run(map[bool]string{true: "reload", false: "no reload"}[reload], func(t *testing.T) {
			cat := filepath.Join(t.TempDir(), "catalog")
			copyTree(t, "../../fixtures/legacy/small-fbb/opm-migrate", cat)
			args := []string{cat, "--watch-interval", "20ms", "--pprof-addr", ""}
			if reload {
				args = append(args, "--reload")
			}
			s := startServe(t, args...)
			ctx, cancel := context.WithCancel(context.Background())
			before, err := listBundles(ctx, api.NewRegistryClient(s.conn))
			require.NoError(t, err)
			p := &watchProbe{}
			probed := make(chan struct{})
			go func() {
				defer close(probed)
				p.run(ctx, t, s)
			}()
			require.Eventually(t, func() bool { return len(p.snapshot().statuses) > 0 }, 10*time.Second, 10*time.Millisecond)

			stderr, code := runBinary(t, bin, "add", cat, filepath.Join(fixtureBundles, "community/couchdb-operator/1.4.2"))
			require.Equal(t, 0, code, stderr)

			want := []healthgrpc.HealthCheckResponse_ServingStatus{healthgrpc.HealthCheckResponse_SERVING, healthgrpc.HealthCheckResponse_NOT_SERVING}
			if reload {
				want = append(want, healthgrpc.HealthCheckResponse_SERVING)
			}
			require.Eventually(t, func() bool { return slices.Equal(p.snapshot().statuses, want) }, 30*time.Second, 10*time.Millisecond,
				"health watch: %v; server log:\n%s", p.snapshot().statuses, s.stderr.String())
			time.Sleep(200 * time.Millisecond) // ten more polls: nothing else changes
			cancel()
			<-probed
			got := p.snapshot()
			assert.Equal(t, want, got.statuses)
			assert.Empty(t, got.bad)
			after, err := listBundles(context.Background(), api.NewRegistryClient(s.conn))
			if !reload {
				assert.Equal(t, codes.Unavailable, status.Code(err), "%v", err)
				assert.NotContains(t, got.lists, "", "no empty answer")
				for _, l := range got.lists {
					assert.Equal(t, before, l)
				}
				return
			}
			require.NoError(t, err)
			assert.Contains(t, after, "couchdb-operator/")
			for _, l := range got.lists {
				assert.Contains(t, []string{before, after}, l, "a ListBundles answer that is neither the old nor the new catalog")
			}
			assert.Contains(t, got.lists, after, "the probe saw the new catalog")
		})
	}
}

// snapshot copies what was recorded so far.
func (p *watchProbe) snapshot() watchProbe {
	p.mu.Lock()
	defer p.mu.Unlock()
	return watchProbe{statuses: slices.Clone(p.statuses), lists: slices.Clone(p.lists), bad: slices.Clone(p.bad)}
}

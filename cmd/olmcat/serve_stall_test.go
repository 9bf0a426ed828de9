package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// vmHWM is the peak resident size of process pid in kB.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			require.NoError(t, err)
			return n
		}
	}
	require.Fail(t, "no VmHWM in /proc/PID/status")
	return 0
}

// TestServeStalledClientsKeepMemoryFlat serves a catalog whose bundles
// carry 2 MB CSVs inline with the real binary (default flags) over
// loopback TCP, drains ListBundles once, then opens 10 clients that call
// ListBundles and never read, and drains it again beside them: the
// server's peak RSS grows by a bounded amount (it grew by some 16 MB per
// stalled client, each stream holding two encoded bundles and the next
// one prepared): by at most the send buffer and a bundle; and the reading
// client is answered.
func TestServeStalledClientsKeepMemoryFlat(t *testing.T) {
	bin := buildBinary(t)
	cat := catalogtest.Dir(t, catalogtest.WithBundles(4), catalogtest.WithoutImages(),
		catalogtest.WithCSVOnly(), catalogtest.WithManifestBytes(4_000_000))
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	srv := exec.Command(bin, "serve", cat, "-p", strconv.Itoa(port), "--pprof-addr", "")
	require.NoError(t, srv.Start())
	t.Cleanup(func() {
		_ = srv.Process.Kill()
		_ = srv.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(64<<20)))
	require.NoError(t, err)
	defer conn.Close()
	require.Eventually(t, func() bool {
		resp, err := healthgrpc.NewHealthClient(conn).Check(context.Background(), &healthgrpc.HealthCheckRequest{})
		return err == nil && resp.GetStatus() == healthgrpc.HealthCheckResponse_SERVING
	}, time.Minute, 20*time.Millisecond)
	c := api.NewRegistryClient(conn)
	want, err := listBundles(context.Background(), c)
	require.NoError(t, err)
	before := vmHWM(t, srv.Process.Pid)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 10 {
		sc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		require.NoError(t, err)
		defer sc.Close()
		_, err = api.NewRegistryClient(sc).ListBundles(ctx, &api.ListBundlesRequest{})
		require.NoError(t, err)
	}
	time.Sleep(2 * time.Second) // the stalled streams do what they will
	drainCtx, drainCancel := context.WithTimeout(context.Background(), time.Minute)
	defer drainCancel()
	got, err := listBundles(drainCtx, c)
	require.NoError(t, err, "a client that reads is answered beside stalled ones")
	assert.Equal(t, want, got)
	after := vmHWM(t, srv.Process.Pid)
	// At most the send buffer (--send-buffer-mb 16) and a bundle being
	// prepared and encoded beyond it; before, some 16 MB per stalled
	// client (66 to 232 MB).
	assert.Less(t, after-before, int64(32<<10), "peak RSS %d MB without stalled clients, %d MB with 10", before>>10, after>>10)
}

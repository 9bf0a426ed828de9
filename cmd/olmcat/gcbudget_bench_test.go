package main

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
	"github.com/operator-catalog/olmcat/registry/api"
)

// BenchmarkGCBudget is the benchmark of the collector budgets of
// internal/runtimetune. It runs the real binary, as a whole process, on
// the benchmark index (10,000 bundles from scripts/gen-bench-db.sh) and
// its migration, with the collector budget the command sets itself (GOGC
// and GOMEMLIMIT unset) and with the environment's settings instead, and
// reports each run's peak RSS and CPU: migrate, parity, and serve <dir>
// from start through SERVING and one ListBundles.
//
//	go test ./cmd/olmcat -run '^$' -bench GCBudget -benchtime 1x -count 5
func BenchmarkGCBudget(b *testing.B) {
	db := testinput.Path(b, "OLMCAT_BENCH_DB", "/tmp/bench/index.db", "run scripts/gen-bench-db.sh")
	bin := buildBinary(b)
	catalog := filepath.Join(b.TempDir(), "catalog")
	out, err := exec.Command(bin, "migrate", "--no-deprecation-warning", db, catalog).CombinedOutput()
	require.NoError(b, err, "%s", out)
	// migrate's budget against the runtime's defaults (GOGC 100, no
	// soft limit).
	for _, gc := range []struct{ name, gogc, gomemlimit string }{{"budget", "", ""}, {"default", "100", "off"}} {
		env := os.Environ()
		if gc.gogc != "" {
			env = append(env, "GOGC="+gc.gogc, "GOMEMLIMIT="+gc.gomemlimit)
		}
		b.Run("migrate/"+gc.name, func(b *testing.B) {
			for range b.N {
				cmd := exec.Command(bin, "migrate", "--no-deprecation-warning", db, filepath.Join(b.TempDir(), "out"))
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				require.NoError(b, err, "%s", out)
				reportProcess(b, cmd.ProcessState)
			}
		})
	}
	for _, gc := range []struct{ name, gogc string }{{"budget", ""}, {"gogc-50", "50"}, {"gogc-100", "100"}} {
		env := os.Environ()
		if gc.gogc != "" {
			env = append(env, "GOGC="+gc.gogc)
		}
		b.Run("parity/"+gc.name, func(b *testing.B) {
			for range b.N {
				cmd := exec.Command(bin, "parity", "--no-deprecation-warning", "--max-diffs", "0", db, catalog)
				cmd.Env = env
				out, err := cmd.CombinedOutput()
				require.NoError(b, err, "%s", out)
				reportProcess(b, cmd.ProcessState)
			}
		})
		b.Run("serve-dir/"+gc.name, func(b *testing.B) {
			for range b.N {
				reportProcess(b, serveAndList(b, bin, env, catalog))
			}
		})
	}
}

// reportProcess reports a finished child's peak RSS and CPU.
func reportProcess(b *testing.B, ps *os.ProcessState) {
	b.Helper()
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	require.True(b, ok, "no resource usage of the child")
	b.ReportMetric(float64(ru.Maxrss)/1024, "peak-MB")
	b.ReportMetric((ps.UserTime() + ps.SystemTime()).Seconds(), "cpu-s")
}

// serveAndList starts `bin serve catalog`, waits until it is SERVING,
// drains one ListBundles and stops it.
func serveAndList(b *testing.B, bin string, env []string, catalog string) *os.ProcessState {
	b.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(b, l.Close())
	cmd := exec.Command(bin, "serve", "-p", strconv.Itoa(port), catalog)
	cmd.Env = env
	require.NoError(b, cmd.Start())
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	}()
	conn, err := grpc.NewClient(net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(b, err)
	defer conn.Close()
	require.Eventually(b, func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		r, err := healthgrpc.NewHealthClient(conn).Check(ctx, &healthgrpc.HealthCheckRequest{})
		return err == nil && r.GetStatus() == healthgrpc.HealthCheckResponse_SERVING
	}, 5*time.Minute, 10*time.Millisecond)
	s, err := api.NewRegistryClient(conn).ListBundles(context.Background(), &api.ListBundlesRequest{})
	require.NoError(b, err)
	for {
		if _, err := s.Recv(); errors.Is(err, io.EOF) {
			break
		} else {
			require.NoError(b, err)
		}
	}
	require.NoError(b, cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(b, cmd.Wait())
	return cmd.ProcessState
}

// Command servebench measures a catalog server as a whole process: it
// starts the server command, polls grpc.health.v1 until SERVING, then
// optionally drains api.Registry/ListBundles, and prints the time to
// SERVING, the peak RSS at SERVING (VmHWM), the peak RSS after ListBundles,
// the RSS after ListBundles and the user+sys CPU seconds of the server.
// With -ghz it runs a mixed load of -clients clients for -duration
// instead (load.go) and reports each RPC's calls, errors and latency and
// the server's peak RSS after it (scripts/loadtest-serve.sh). With
// -stalled N it reports the peak RSS after one ListBundles, then with N
// clients that open ListBundles and never read, after one more drain
// beside them (stall.go); -write-csv-catalog writes that case's catalog.
//
// The server command is given after "--" and must take "-p PORT" (the
// port is appended). Used by scripts/bench-serve-*.sh:
//
//	go run ./scripts/servebench -list -- bin/olmcat serve /tmp/bench/catalog
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/operator-catalog/olmcat/registry/api"
)

func main() {
	list := flag.Bool("list", false, "drain ListBundles once SERVING and report memory after it")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up when not SERVING by then")
	var ld load
	flag.StringVar(&ld.ghz, "ghz", "", "once SERVING, run the mixed load with this ghz binary and report it")
	flag.IntVar(&ld.clients, "clients", 50, "concurrent clients of the load")
	flag.DurationVar(&ld.duration, "duration", 20*time.Second, "how long the load runs")
	flag.StringVar(&ld.dir, "dir", os.TempDir(), "where the load's request data and reports are written")
	flag.IntVar(&ld.stall.clients, "stalled", 0, "once SERVING, drain ListBundles, then open this many clients that call ListBundles and never read, and drain it again beside them")
	flag.DurationVar(&ld.stall.settle, "settle", 5*time.Second, "how long the -stalled clients stay stalled before the peak RSS is read")
	writeCatalog := flag.String("write-csv-catalog", "", "write the stalled-client case's catalog (one package, bundles of a single large CSV, no images) into this new directory and exit")
	csvBytes := flag.Int("csv-bytes", 5_000_000, "size of each CSV of -write-csv-catalog")
	csvBundles := flag.Int("csv-bundles", 4, "bundles of -write-csv-catalog")
	flag.Parse()
	if *writeCatalog != "" {
		if err := writeBigCSVCatalog(*writeCatalog, *csvBundles, *csvBytes); err != nil {
			fmt.Fprintln(os.Stderr, "servebench:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: servebench [-list] [-ghz GHZ -clients N -duration D -dir DIR] -- SERVER-COMMAND [ARG ...]")
		os.Exit(2)
	}
	if err := run(flag.Args(), *list, *timeout, ld); err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
}

// result is one measured server start.
type result struct {
	ready                time.Duration
	hwmReady, hwmListed  int64 // kB
	rssListed            int64 // kB
	load                 []rpcResult
	hwmLoaded            int64 // kB, after the load
	hwmNoStall, hwmStall int64 // kB, after ListBundles without and with stalled clients
	bundles              int
	cpu                  time.Duration
}

func run(argv []string, list bool, timeout time.Duration, ld load) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	cmd := exec.Command(argv[0], append(argv[1:], "-p", strconv.Itoa(port))...)
	var stderr tail
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	r, err := measure(cmd.Process.Pid, addr, start, list, timeout, exited, ld)
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
	}
	if err != nil {
		return fmt.Errorf("%w; server stderr:\n%s", err, stderr.String())
	}
	if ps := cmd.ProcessState; ps != nil {
		r.cpu = ps.UserTime() + ps.SystemTime()
	}
	fmt.Printf("serving %.3f s, peak RSS at serving %d MB", r.ready.Seconds(), r.hwmReady/1024)
	if ld.stall.clients > 0 {
		printStall(ld.stall, r.bundles, r.hwmNoStall, r.hwmStall)
		return nil
	}
	if ld.ghz != "" {
		fmt.Printf(", CPU %.2f s, load of %d clients for %s:\n", r.cpu.Seconds(), ld.clients, ld.duration)
		printLoad(r.load, r.hwmLoaded)
		return nil
	}
	if list {
		fmt.Printf(", ListBundles %d bundles, peak RSS %d MB, RSS after %d MB", r.bundles, r.hwmListed/1024, r.rssListed/1024)
	}
	fmt.Printf(", CPU %.2f s\n", r.cpu.Seconds())
	return nil
}

func measure(pid int, addr string, start time.Time, list bool, timeout time.Duration, exited <-chan error, ld load) (result, error) {
	var r result
	// gRPC's default reconnect backoff starts at one second: the first
	// attempts fail while the server starts, and the backoff, not the
	// server, would be measured.
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 5 * time.Millisecond, Multiplier: 1.1, MaxDelay: 20 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}))
	if err != nil {
		return r, err
	}
	defer conn.Close()
	health := healthgrpc.NewHealthClient(conn)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := health.Check(ctx, &healthgrpc.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthgrpc.HealthCheckResponse_SERVING {
			r.ready = time.Since(start)
			break
		}
		select {
		case err := <-exited:
			return r, fmt.Errorf("server exited before SERVING: %v", err)
		case <-time.After(5 * time.Millisecond):
		}
		if time.Since(start) > timeout {
			return r, errors.New("not SERVING before the timeout")
		}
	}
	if r.hwmReady, err = procStatus(pid, "VmHWM"); err != nil {
		return r, err
	}
	if ld.stall.clients > 0 {
		r.hwmNoStall, r.hwmStall, r.bundles, err = runStall(pid, conn, addr, ld.stall)
		return r, err
	}
	if ld.ghz != "" {
		if r.load, err = runLoad(conn, addr, ld); err != nil {
			return r, err
		}
		r.hwmLoaded, err = procStatus(pid, "VmHWM")
		return r, err
	}
	if !list {
		return r, nil
	}
	stream, err := api.NewRegistryClient(conn).ListBundles(context.Background(), &api.ListBundlesRequest{}, grpc.MaxCallRecvMsgSize(1<<30))
	if err != nil {
		return r, fmt.Errorf("ListBundles: %w", err)
	}
	for {
		_, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return r, fmt.Errorf("ListBundles: %w", err)
		}
		r.bundles++
	}
	if r.hwmListed, err = procStatus(pid, "VmHWM"); err != nil {
		return r, err
	}
	r.rssListed, err = procStatus(pid, "VmRSS")
	return r, err
}

// procStatus reads a kB field of /proc/PID/status.
func procStatus(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no %s", pid, field)
}

// tail keeps the last 64 KiB written to it: a server that logs every
// call under load must not grow the prober.
type tail struct{ b []byte }

func (t *tail) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if over := len(t.b) - 64<<10; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string { return string(t.b) }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

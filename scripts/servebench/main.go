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
// With -http the server also serves catalogd's HTTP API (olmcat serve
// --http; -no-grpc turns the gRPC API off), ready once /healthz is 200;
// -ghz then runs an HTTP load beside the gRPC one (httpload.go), and
// -http-bench times the first byte of /all and of metas queries and the
// whole /all body instead (http.go, scripts/bench-serve-http.sh).
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
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthgrpc "google.golang.org/grpc/health/grpc_health_v1"
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
	flag.BoolVar(&ld.http.serve, "http", false, "also serve catalogd's HTTP API (olmcat serve --http, --catalog-name "+benchCatalog+"), wait for its /healthz, and run an HTTP load beside -ghz's")
	flag.BoolVar(&ld.http.noGRPC, "no-grpc", false, "serve no gRPC API (-p -1; with -http)")
	flag.BoolVar(&ld.http.bench, "http-bench", false, "with -http: once /healthz is 200, time the first byte of /all and of metas queries and the whole /all body with and without gzip")
	flag.Parse()
	if *writeCatalog != "" {
		if err := writeBigCSVCatalog(*writeCatalog, *csvBundles, *csvBytes); err != nil {
			fmt.Fprintln(os.Stderr, "servebench:", err)
			os.Exit(1)
		}
		return
	}
	if (ld.http.noGRPC || ld.http.bench) && !ld.http.serve {
		fmt.Fprintln(os.Stderr, "servebench: -no-grpc and -http-bench need -http")
		os.Exit(2)
	}
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: servebench [-list] [-http [-no-grpc] [-http-bench]] [-ghz GHZ -clients N -duration D -dir DIR] -- SERVER-COMMAND [ARG ...]")
		os.Exit(2)
	}
	if err := run(flag.Args(), *list, *timeout, ld); err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
}

// result is one measured server start.
type result struct {
	ready, httpReady     time.Duration
	hwmReady, hwmListed  int64 // kB
	rssListed            int64 // kB
	load                 []rpcResult
	httpLoad             []httpResult
	httpBench            httpBench
	hwmLoaded            int64 // kB, after the load
	hwmNoStall, hwmStall int64 // kB, after ListBundles without and with stalled clients
	bundles              int
	cpu                  time.Duration
}

// serverArgs appends the ports to the server command: -p PORT (-p -1
// without gRPC, then addr is "") and, with -http, the catalogd HTTP API's
// flags.
func serverArgs(argv []string, ld load) (args []string, addr string, api httpAPI, err error) {
	port, err := freePort()
	if err != nil {
		return nil, "", api, err
	}
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	args = slices.Concat(argv[1:], []string{"-p", strconv.Itoa(port)})
	if ld.http.noGRPC {
		args, addr = slices.Concat(argv[1:], []string{"-p", "-1"}), ""
	}
	if ld.http.serve {
		var extra []string
		if extra, api, err = httpArgs(); err != nil {
			return nil, "", api, err
		}
		args = append(args, extra...)
	}
	return args, addr, api, nil
}

func run(argv []string, list bool, timeout time.Duration, ld load) error {
	args, addr, api, err := serverArgs(argv, ld)
	if err != nil {
		return err
	}
	cmd := exec.Command(argv[0], args...)
	var stderr tail
	cmd.Stdout = io.Discard
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	// Closed once the server exited: every wait below selects on it.
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	r, err := measure(cmd.Process.Pid, addr, api, start, list, timeout, exited, ld)
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
	return report(r, list, ld)
}

// report prints what run measured.
func report(r result, list bool, ld load) error {
	if ld.http.bench {
		printHTTPBench(r.httpReady, r.hwmReady, r.httpBench, r.hwmLoaded)
		return nil
	}
	fmt.Printf("serving %.3f s, peak RSS at serving %d MB", r.ready.Seconds(), r.hwmReady/1024)
	if ld.http.serve {
		fmt.Printf(", /healthz 200 %.3f s", r.httpReady.Seconds())
	}
	if ld.stall.clients > 0 {
		printStall(ld.stall, r.bundles, r.hwmNoStall, r.hwmStall)
		return nil
	}
	if ld.ghz != "" {
		fmt.Printf(", CPU %.2f s, load of %d clients for %s:\n", r.cpu.Seconds(), ld.clients, ld.duration)
		printLoad(r.load, r.hwmLoaded)
		if ld.http.serve {
			return printHTTPLoad(r.httpLoad)
		}
		return nil
	}
	if list {
		fmt.Printf(", ListBundles %d bundles, peak RSS %d MB, RSS after %d MB", r.bundles, r.hwmListed/1024, r.rssListed/1024)
	}
	fmt.Printf(", CPU %.2f s\n", r.cpu.Seconds())
	return nil
}

// measure waits until the server is ready (gRPC SERVING unless addr is
// "", /healthz 200 with -http), then runs what the flags ask for.
func measure(pid int, addr string, api httpAPI, start time.Time, list bool, timeout time.Duration, exited <-chan struct{}, ld load) (result, error) {
	var r result
	var conn *grpc.ClientConn
	var err error
	if addr != "" {
		if conn, err = dialGRPC(addr); err != nil {
			return r, err
		}
		defer conn.Close()
		if r.ready, err = waitServing(conn, start, timeout, exited); err != nil {
			return r, err
		}
	}
	if ld.http.serve {
		if r.httpReady, err = waitHealthz(api, start, timeout, exited); err != nil {
			return r, err
		}
	}
	if r.hwmReady, err = procStatus(pid, "VmHWM"); err != nil {
		return r, err
	}
	switch {
	case ld.http.bench:
		if r.httpBench, err = runHTTPBench(api); err != nil {
			return r, err
		}
	case ld.stall.clients > 0:
		r.hwmNoStall, r.hwmStall, r.bundles, err = runStall(pid, conn, addr, ld.stall)
		return r, err
	case ld.ghz != "":
		if r.load, r.httpLoad, err = runLoads(conn, addr, api, ld); err != nil {
			return r, err
		}
	case list:
		if r.bundles, err = drain(conn); err != nil {
			return r, err
		}
		if r.hwmListed, err = procStatus(pid, "VmHWM"); err != nil {
			return r, err
		}
		r.rssListed, err = procStatus(pid, "VmRSS")
		return r, err
	default:
		return r, nil
	}
	r.hwmLoaded, err = procStatus(pid, "VmHWM")
	return r, err
}

// runLoads runs the gRPC load and, with -http, the HTTP load at the same
// time.
func runLoads(conn *grpc.ClientConn, addr string, api httpAPI, ld load) ([]rpcResult, []httpResult, error) {
	var httpRes []httpResult
	var httpErr error
	var wg sync.WaitGroup
	if ld.http.serve {
		wg.Go(func() { httpRes, httpErr = runHTTPLoad(api, ld) })
	}
	grpcRes, err := runLoad(conn, addr, ld)
	wg.Wait()
	return grpcRes, httpRes, errors.Join(err, httpErr)
}

// dialGRPC is a client of addr that reconnects quickly: gRPC's default
// reconnect backoff starts at one second, the first attempts fail while
// the server starts, and the backoff, not the server, would be measured.
func dialGRPC(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff:           backoff.Config{BaseDelay: 5 * time.Millisecond, Multiplier: 1.1, MaxDelay: 20 * time.Millisecond},
			MinConnectTimeout: time.Second,
		}))
}

// waitServing polls grpc.health.v1 until SERVING and returns the time
// since start.
func waitServing(conn *grpc.ClientConn, start time.Time, timeout time.Duration, exited <-chan struct{}) (time.Duration, error) {
	health := healthgrpc.NewHealthClient(conn)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := health.Check(ctx, &healthgrpc.HealthCheckRequest{})
		cancel()
		if err == nil && resp.GetStatus() == healthgrpc.HealthCheckResponse_SERVING {
			return time.Since(start), nil
		}
		select {
		case <-exited:
			return 0, errors.New("server exited before SERVING")
		case <-time.After(5 * time.Millisecond):
		}
		if time.Since(start) > timeout {
			return 0, errors.New("not SERVING before the timeout")
		}
	}
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

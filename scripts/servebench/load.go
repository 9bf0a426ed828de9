package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"

	"github.com/operator-catalog/olmcat/registry/api"
)

// load is a mixed load run by ghz, one ghz process per RPC, all at once
// against the same server for the same duration.
type load struct {
	ghz      string        // the ghz binary
	clients  int           // concurrent clients (workers, one connection each)
	duration time.Duration // how long each ghz sends
	dir      string        // where the request data and reports go
	stall    stall         // the stalled-client case instead, when stall.clients > 0
	http     httpOpts      // the catalogd HTTP API the server also serves
}

// rpcLoad is one RPC of the mix and the clients that call it.
type rpcLoad struct {
	call    string // package.Service/Method
	data    string // JSON file of request messages (an array is sent round robin); "" for {}
	clients int
}

// mix splits the clients over the RPCs as OLM calls them on each catalog
// sync: ListBundles twice (the resolver's snapshot and package-server),
// ListPackages once, GetPackage once per package from each of the two,
// GetBundleForChannel once per channel (package-server), and the health
// probe. ListBundles, ListPackages and Health.Check get one client each
// (their share of calls is below one client); GetPackage and
// GetBundleForChannel share the rest by their call counts.
func mix(clients, packages, channels int, pkgData, chanData string) []rpcLoad {
	rest := max(clients-3, 2)
	getPackage := max(1, rest*2*packages/(2*packages+channels))
	return []rpcLoad{
		{call: "api.Registry/ListBundles", clients: 1},
		{call: "api.Registry/ListPackages", clients: 1},
		{call: "grpc.health.v1.Health/Check", clients: 1},
		{call: "api.Registry/GetPackage", data: pkgData, clients: getPackage},
		{call: "api.Registry/GetBundleForChannel", data: chanData, clients: max(1, rest-getPackage)},
	}
}

// rpcResult is what ghz reported for one RPC.
type rpcResult struct {
	call     string
	clients  int
	count    int
	errors   int
	p50, p99 time.Duration
}

// runLoad writes the request data from the catalog the server answers,
// runs the mix and returns each RPC's result.
func runLoad(conn *grpc.ClientConn, addr string, l load) ([]rpcResult, error) {
	pkgs, chans, err := requestData(conn)
	if err != nil {
		return nil, err
	}
	pkgData, chanData := filepath.Join(l.dir, "getpackage.json"), filepath.Join(l.dir, "getbundleforchannel.json")
	if err := writeJSON(pkgData, pkgs); err != nil {
		return nil, err
	}
	if err := writeJSON(chanData, chans); err != nil {
		return nil, err
	}
	rpcs := mix(l.clients, len(pkgs), len(chans), pkgData, chanData)
	results := make([]rpcResult, len(rpcs))
	errs := make([]error, len(rpcs))
	var wg sync.WaitGroup
	for i, r := range rpcs {
		wg.Go(func() { results[i], errs[i] = runGHZ(addr, r, l, i) })
	}
	wg.Wait()
	return results, errors.Join(errs...)
}

// requestData lists every package's name and every channel as request
// messages for GetPackage and GetBundleForChannel.
func requestData(conn *grpc.ClientConn) (pkgs []map[string]string, chans []map[string]string, err error) {
	ctx := context.Background()
	c := api.NewRegistryClient(conn)
	s, err := c.ListPackages(ctx, &api.ListPackageRequest{})
	if err != nil {
		return nil, nil, fmt.Errorf("ListPackages: %w", err)
	}
	var names []string
	for {
		p, err := s.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("ListPackages: %w", err)
		}
		names = append(names, p.GetName())
	}
	sort.Strings(names)
	for _, n := range names {
		p, err := c.GetPackage(ctx, &api.GetPackageRequest{Name: n})
		if err != nil {
			return nil, nil, fmt.Errorf("GetPackage %s: %w", n, err)
		}
		pkgs = append(pkgs, map[string]string{"name": n})
		for _, ch := range p.GetChannels() {
			chans = append(chans, map[string]string{"pkgName": n, "channelName": ch.GetName()})
		}
	}
	return pkgs, chans, nil
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// ghzReport is the part of ghz's JSON report read here.
type ghzReport struct {
	Count       int            `json:"count"`
	StatusCodes map[string]int `json:"statusCodeDistribution"`
	Latencies   []struct {
		Percentage int           `json:"percentage"`
		Latency    time.Duration `json:"latency"`
	} `json:"latencyDistribution"`
}

// runGHZ runs one RPC's share of the mix and reads its report. In-flight
// calls finish when the time is up (--duration-stop wait): a call cut
// off by the load tool is not the server's error.
func runGHZ(addr string, r rpcLoad, l load, i int) (rpcResult, error) {
	out := filepath.Join(l.dir, fmt.Sprintf("report-%d.json", i))
	args := []string{"--insecure", "--call", r.call, "-c", fmt.Sprint(r.clients), "--connections", fmt.Sprint(r.clients),
		"-z", l.duration.String(), "--duration-stop", "wait", "-t", "60s", "--max-recv-message-size", "256MB",
		"-O", "json", "-o", out}
	if r.data != "" {
		args = append(args, "-D", r.data)
	} else {
		args = append(args, "-d", "{}")
	}
	cmd := exec.Command(l.ghz, append(args, addr)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return rpcResult{}, fmt.Errorf("ghz %s: %w: %s", r.call, err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return rpcResult{}, err
	}
	var rep ghzReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return rpcResult{}, fmt.Errorf("ghz %s report: %w", r.call, err)
	}
	res := rpcResult{call: r.call, clients: r.clients, count: rep.Count}
	for code, n := range rep.StatusCodes {
		if code != "OK" {
			res.errors += n
		}
	}
	for _, d := range rep.Latencies {
		switch d.Percentage {
		case 50:
			res.p50 = d.Latency
		case 99:
			res.p99 = d.Latency
		}
	}
	return res, nil
}

// printLoad prints one line per RPC and the totals.
func printLoad(results []rpcResult, peakKB int64) {
	calls, errs := 0, 0
	for _, r := range results {
		fmt.Printf("  %-36s %3d clients %7d calls %4d errors  p50 %8.2f ms  p99 %8.2f ms\n",
			r.call, r.clients, r.count, r.errors, ms(r.p50), ms(r.p99))
		calls += r.count
		errs += r.errors
	}
	fmt.Printf("  total %d calls, %d errors, server peak RSS %d MB\n", calls, errs, peakKB/1024)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// stall is the stalled-client case (scripts/loadtest-serve.sh): clients
// that open ListBundles and never read, each on its own connection.
type stall struct {
	clients int           // stalled clients
	settle  time.Duration // how long they stay stalled before the peak is read
}

// runStall measures the server's peak RSS after one client drains
// ListBundles (the no-stall figure), then opens the stalled clients,
// waits, and drains ListBundles again beside them (a stalled client must
// not starve the others): the peak after that is the stalled figure.
func runStall(pid int, conn *grpc.ClientConn, addr string, st stall) (noStall, stalled int64, bundles int, err error) {
	if bundles, err = drain(conn); err != nil {
		return 0, 0, 0, err
	}
	if noStall, err = procStatus(pid, "VmHWM"); err != nil {
		return 0, 0, 0, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range st.clients {
		c, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return 0, 0, 0, err
		}
		defer c.Close()
		if _, err := api.NewRegistryClient(c).ListBundles(ctx, &api.ListBundlesRequest{}); err != nil {
			return 0, 0, 0, fmt.Errorf("stalled ListBundles: %w", err)
		}
	}
	time.Sleep(st.settle)
	if _, err := drain(conn); err != nil {
		return 0, 0, 0, fmt.Errorf("beside %d stalled clients: %w", st.clients, err)
	}
	stalled, err = procStatus(pid, "VmHWM")
	return noStall, stalled, bundles, err
}

// drain reads a whole ListBundles and counts its messages.
func drain(conn *grpc.ClientConn) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	stream, err := api.NewRegistryClient(conn).ListBundles(ctx, &api.ListBundlesRequest{}, grpc.MaxCallRecvMsgSize(1<<30))
	if err != nil {
		return 0, fmt.Errorf("ListBundles: %w", err)
	}
	n := 0
	for {
		_, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("ListBundles: %w", err)
		}
		n++
	}
}

// writeBigCSVCatalog writes the stalled-client case's catalog: one
// package of bundles without images (ListBundles sends their manifests
// inline), each a single CSV of about csvBytes.
func writeBigCSVCatalog(dir string, bundles, csvBytes int) error {
	// The generator puts half of the padding into the CSV (the other
	// half goes to a CRD that WithCSVOnly leaves out).
	c, err := catalogtest.Generate(catalogtest.WithBundles(bundles), catalogtest.WithoutImages(),
		catalogtest.WithCSVOnly(), catalogtest.WithManifestBytes(2*csvBytes))
	if err != nil {
		return err
	}
	return c.WriteDir(dir)
}

func printStall(st stall, bundles int, noStall, stalled int64) {
	fmt.Printf(", %d ListBundles messages, peak RSS after ListBundles %d MB, with %d stalled clients %d MB (%+.0f%%)\n",
		bundles, noStall/1024, st.clients, stalled/1024, 100*float64(stalled-noStall)/float64(noStall))
}

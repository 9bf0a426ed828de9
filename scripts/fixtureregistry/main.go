// Command fixtureregistry serves the bundle directories of
// fixtures/bundles as bundle images on a loopback registry, under the
// names the legacy fixtures give them (127.0.0.1:5000/test/foo-bundle:v0.1.0,
// ...), for recording what the real opm renders of them
// (scripts/record-template-goldens.sh), or with -synthetic N the bundles
// of the generated benchmark index (scripts/bench-template.sh). It prints
// "ready" once every image is pushed and serves until killed.
//
//	go run ./scripts/fixtureregistry -addr 127.0.0.1:5000
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/operator-catalog/olmcat/internal/testutil/bundleimages"
	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
)

func main() {
	addr := flag.String("addr", bundleimages.FixtureHost, "loopback address to serve on")
	root := flag.String("bundles", "fixtures/bundles", "the bundle directories")
	synthetic := flag.Int("synthetic", 0, "instead: push this many synthetic bundles (internal/testutil/catalogtest, etcd base) under their own names (example.com/olmcat-bench/...)")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	go func() { log.Fatal(srv.Serve(ln)) }()
	n, err := push(ln.Addr().String(), *root, *synthetic)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "ready: %d bundle images on %s\n", n, ln.Addr())
	select {}
}

// push pushes the fixture bundles, or n synthetic ones.
func push(host, root string, n int) (int, error) {
	if n > 0 {
		cat, err := catalogtest.Generate(catalogtest.WithBundles(n),
			catalogtest.LegacyBenchIndex(filepath.Join(root, "opm-bundles", "etcd.0.9.2")))
		if err != nil {
			return 0, err
		}
		return n, bundleimages.DBBundles(host, cat.DBBundles())
	}
	refs, err := bundleimages.FixtureRefs(root)
	if err != nil {
		return 0, err
	}
	return len(refs), bundleimages.PushFixtures(host, root, refs)
}

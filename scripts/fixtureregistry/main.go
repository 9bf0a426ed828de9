// Command fixtureregistry serves the bundle directories of
// fixtures/bundles as bundle images on a loopback registry, under the
// names the legacy fixtures give them (127.0.0.1:5000/test/foo-bundle:v0.1.0,
// ...), for recording what the real opm renders of them
// (scripts/record-template-goldens.sh). It prints "ready" once every
// image is pushed and serves until killed.
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

	"github.com/google/go-containerregistry/pkg/registry"

	"github.com/operator-catalog/olmcat/internal/bundleimages"
)

func main() {
	addr := flag.String("addr", bundleimages.FixtureHost, "loopback address to serve on")
	root := flag.String("bundles", "fixtures/bundles", "the bundle directories")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	go func() { log.Fatal(srv.Serve(ln)) }()
	refs, err := bundleimages.FixtureRefs(*root)
	if err != nil {
		log.Fatal(err)
	}
	if err := bundleimages.PushFixtures(ln.Addr().String(), *root, refs); err != nil {
		log.Fatal(err)
	}
	fmt.Fprintf(os.Stdout, "ready: %d bundle images on %s\n", len(refs), ln.Addr())
	select {}
}

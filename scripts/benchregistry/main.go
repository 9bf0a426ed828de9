// Command benchregistry serves go-containerregistry's registry on
// loopback for the index benchmarks (scripts/bench-index.sh): it pushes a
// legacy index database as a sqlite index image and bundle directories
// as bundle images, prints one "index REF" / "bundle REF" line each and
// a "ready" line, and serves until it is killed.
//
//	go run ./scripts/benchregistry -index /tmp/bench/index.db -bundles dir1,dir2
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/bundleimages"
)

func main() {
	index := flag.String("index", "", "legacy index database to push as REG/bench/index:bench")
	bundles := flag.String("bundles", "", "comma-separated bundle directories (manifests/, metadata/) to push")
	flag.Parse()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: registry.New(registry.Logger(log.New(io.Discard, "", 0)))}
	go func() { _ = srv.Serve(ln) }()
	host := ln.Addr().String()
	if *index != "" {
		img, err := indexImage(*index)
		must(err)
		fmt.Println("index", push(host, "bench/index:bench", img))
	}
	for _, dir := range strings.Split(*bundles, ",") {
		if dir == "" {
			continue
		}
		img, err := bundleImage(dir)
		must(err)
		fmt.Println("bundle", push(host, "bundles/"+strings.ToLower(filepath.Base(dir))+":v1", img))
	}
	fmt.Println("ready")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	_ = srv.Shutdown(context.Background())
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}

func push(host, repoTag string, img v1.Image) string {
	must(bundleimages.Push(host, repoTag, img))
	return host + "/" + repoTag
}

// bundleImage is a bundle dir as one layer with the bundle labels.
func bundleImage(dir string) (v1.Image, error) {
	files, err := bundleimages.DirFiles(dir)
	if err != nil {
		return nil, err
	}
	return bundleimages.Image(files)
}

// indexImage is a sqlite index image: database/index.db and opm's label.
func indexImage(db string) (v1.Image, error) {
	data, err := os.ReadFile(db)
	if err != nil {
		return nil, err
	}
	img, err := bundleimages.Image([]bundleimages.File{{Path: "database/index.db", Data: data}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Config.Labels = map[string]string{image.LabelDatabase: "/database/index.db"}
	return mutate.ConfigFile(img, cfg)
}

// Command benchregistry serves go-containerregistry's registry on
// loopback for the index benchmarks (scripts/bench-index.sh): it pushes a
// legacy index database as a sqlite index image and bundle directories
// as bundle images, prints one "index REF" / "bundle REF" line each and
// a "ready" line, and serves until it is killed.
//
//	go run ./scripts/benchregistry -index /tmp/bench/index.db -bundles dir1,dir2
package main

import (
	"archive/tar"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"sigs.k8s.io/yaml"
)

func main() {
	index := flag.String("index", "", "legacy index database to push as REG/index:bench")
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
		img, err := imageOf(map[string]string{"operators.operatorframework.io.index.database.v1": "/database/index.db"},
			map[string]string{*index: "database/index.db"})
		must(err)
		fmt.Println("index", push(host, "index:bench", img))
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
	ref := host + "/" + repoTag
	r, err := name.ParseReference(ref, name.Insecure)
	must(err)
	must(remote.Write(r, img))
	return ref
}

// bundleImage is a bundle dir as one layer with the bundle labels.
func bundleImage(dir string) (v1.Image, error) {
	data, err := os.ReadFile(filepath.Join(dir, "metadata", "annotations.yaml"))
	if err != nil {
		return nil, err
	}
	var ann struct {
		Annotations map[string]string `json:"annotations"`
	}
	if err := yaml.Unmarshal(data, &ann); err != nil {
		return nil, err
	}
	files := map[string]string{}
	for _, sub := range []string{"manifests", "metadata"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			files[p] = filepath.ToSlash(rel)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return imageOf(ann.Annotations, files)
}

// imageOf is an image with labels and one layer holding each local file
// at its path.
func imageOf(labels, files map[string]string) (v1.Image, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for src, dest := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			return nil, err
		}
		if err := tw.WriteHeader(&tar.Header{Name: dest, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.Config.Labels = labels
	cfg.OS, cfg.Architecture = "linux", "amd64"
	return mutate.ConfigFile(img, cfg)
}

// Package bundleimages builds bundle images from bundle directories
// (manifests/ and metadata/ at the image root, the annotations as labels,
// as operator-sdk builds them) and pushes them to a registry, for the
// tests and benchmarks that render templates naming bundle images, and
// for recording what the real opm renders of the same images.
//
// FixtureRef and FixtureDir map the bundle images the legacy fixtures
// name (127.0.0.1:5000/...) to the bundle directories of
// fixtures/bundles/.
package bundleimages

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

// FixtureHost is the registry the legacy fixtures' bundle images name.
const FixtureHost = "127.0.0.1:5000"

// File is one file of a bundle image, by its path in the image.
type File struct {
	Path string
	Data []byte
}

// Image builds a bundle image from files (paths below manifests/ and
// metadata/), labelled with the annotations of metadata/annotations.yaml.
func Image(files []File) (v1.Image, error) {
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	dirs := map[string]bool{}
	labels := map[string]string{}
	for _, f := range files {
		for d := filepath.Dir(f.Path); d != "." && !dirs[d]; d = filepath.Dir(d) {
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Name: d + "/", Typeflag: tar.TypeDir, Mode: 0o755, ModTime: time.Unix(0, 0)}); err != nil {
				return nil, err
			}
		}
		if err := tw.WriteHeader(&tar.Header{Name: f.Path, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(f.Data)), ModTime: time.Unix(0, 0)}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return nil, err
		}
		if f.Path == "metadata/annotations.yaml" {
			var ann struct {
				Annotations map[string]string `json:"annotations"`
			}
			if err := yaml.Unmarshal(f.Data, &ann); err != nil {
				return nil, fmt.Errorf("%s: %w", f.Path, err)
			}
			labels = ann.Annotations
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.Config.Labels = labels
	cf.OS, cf.Architecture = "linux", "amd64"
	return mutate.ConfigFile(img, cf)
}

// DirFiles reads manifests/ and metadata/ of a bundle directory.
func DirFiles(dir string) ([]File, error) {
	var files []File
	for _, sub := range []string{"manifests", "metadata"} {
		err := filepath.WalkDir(filepath.Join(dir, sub), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			files = append(files, File{Path: filepath.ToSlash(rel), Data: data})
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}

// Push writes img as ref to the registry at host (plain HTTP), whatever
// registry ref names: the image is stored under ref's repository and tag.
func Push(host, ref string, img v1.Image, opts ...remote.Option) error {
	r, err := name.ParseReference(ref)
	if err != nil {
		return err
	}
	at, err := name.ParseReference(host+"/"+r.Context().RepositoryStr()+":"+r.Identifier(), name.Insecure)
	if err != nil {
		return err
	}
	return remote.Write(at, img, opts...)
}

// FixtureDir returns the bundle directory below fixtures/bundles of a
// fixture bundle image reference, "" when there is none:
// test/<name>:v<version> is small-fbb/<name>-v<version>,
// community-operators/<package>:v<version> is community/<package>/<version>,
// operator-registry/bundles:<dir> is opm-bundles/<dir>.
func FixtureDir(ref string) string {
	rest, ok := strings.CutPrefix(ref, FixtureHost+"/")
	if !ok {
		return ""
	}
	repo, tag, ok := strings.Cut(rest, ":")
	if !ok {
		return ""
	}
	switch {
	case strings.HasPrefix(repo, "test/"):
		return filepath.Join("small-fbb", strings.TrimPrefix(repo, "test/")+"-"+tag)
	case strings.HasPrefix(repo, "community-operators/"):
		return filepath.Join("community", strings.TrimPrefix(repo, "community-operators/"), strings.TrimPrefix(tag, "v"))
	case repo == "operator-registry/bundles":
		return filepath.Join("opm-bundles", tag)
	}
	return ""
}

// PushFixtures pushes the bundle directory of every ref (FixtureDir
// below bundlesRoot) to the registry at host under the ref's repository
// and tag. Refs without a directory are an error.
func PushFixtures(host, bundlesRoot string, refs []string, opts ...remote.Option) error {
	for _, ref := range refs {
		dir := FixtureDir(ref)
		if dir == "" {
			return fmt.Errorf("no fixture bundle directory for %s", ref)
		}
		files, err := DirFiles(filepath.Join(bundlesRoot, dir))
		if err != nil {
			return err
		}
		img, err := Image(files)
		if err != nil {
			return fmt.Errorf("%s: %w", dir, err)
		}
		if err := Push(host, ref, img, opts...); err != nil {
			return fmt.Errorf("push %s: %w", ref, err)
		}
	}
	return nil
}

// FixtureRefs lists the image reference of every bundle directory below
// bundlesRoot (with metadata/annotations.yaml) that FixtureDir maps one
// to.
func FixtureRefs(bundlesRoot string) ([]string, error) {
	var refs []string
	add := func(pattern string, ref func(parts []string) string) error {
		dirs, err := filepath.Glob(filepath.Join(bundlesRoot, pattern))
		if err != nil {
			return err
		}
		for _, d := range dirs {
			if _, err := os.Stat(filepath.Join(d, "metadata", "annotations.yaml")); err != nil {
				continue // not a bundle in the image format
			}
			rel, _ := filepath.Rel(bundlesRoot, d)
			refs = append(refs, FixtureHost+"/"+ref(strings.Split(filepath.ToSlash(rel), "/")))
		}
		return nil
	}
	err := errors.Join(
		add("small-fbb/*", func(p []string) string {
			i := strings.LastIndex(p[1], "-v")
			return "test/" + p[1][:i] + ":" + p[1][i+1:]
		}),
		add("community/*/*", func(p []string) string { return "community-operators/" + p[1] + ":v" + p[2] }),
		add("opm-bundles/*", func(p []string) string { return "operator-registry/bundles:" + p[1] }),
	)
	return refs, err
}

// MirrorConf is a registries.conf (v2) whose mirrors send pulls of the
// registries or repositories prefixes name (default the fixtures'
// registry) to the same repositories on host, plain HTTP. The location is
// host too, so a pull that misses never leaves the machine.
func MirrorConf(host string, prefixes ...string) string {
	if len(prefixes) == 0 {
		prefixes = []string{FixtureHost}
	}
	var b strings.Builder
	for _, p := range prefixes {
		at := host
		if _, repo, ok := strings.Cut(p, "/"); ok {
			at += "/" + repo
		}
		fmt.Fprintf(&b, "[[registry]]\nprefix = %q\nlocation = %q\ninsecure = true\n\n[[registry.mirror]]\nlocation = %q\ninsecure = true\n\n", p, at, at)
	}
	return b.String()
}

// DBBundle pushes a bundle of the legacy database builder as an image
// named by its Image field: its objects as manifests/<n>.json, its
// package and channels as metadata/annotations.yaml, its dependencies and
// properties files.
func DBBundle(host string, b dbbuild.Bundle, opts ...remote.Option) error {
	ann := map[string]string{
		annotation.Package:   b.Package,
		annotation.Channels:  strings.Join(b.Channels, ","),
		annotation.MediaType: "registry+v1",
		annotation.Manifests: "manifests/",
		annotation.Metadata:  "metadata/",
	}
	if b.DefaultChannel != "" {
		ann[annotation.DefaultChannel] = b.DefaultChannel
	}
	files := make([]File, 0, len(b.Objects)+3)
	for i, o := range b.Objects {
		files = append(files, File{Path: fmt.Sprintf("manifests/%03d.json", i), Data: o})
	}
	meta := map[string]any{"annotations": ann}
	if len(b.Dependencies) > 0 {
		meta = map[string]any{"annotations": ann, "dependencies": b.Dependencies}
	}
	for name, v := range map[string]any{"annotations.yaml": meta, "properties.yaml": map[string]any{"properties": b.Properties}} {
		if name == "properties.yaml" && len(b.Properties) == 0 {
			continue
		}
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		files = append(files, File{Path: "metadata/" + name, Data: data})
	}
	img, err := Image(files)
	if err != nil {
		return fmt.Errorf("bundle %s: %w", b.Image, err)
	}
	return Push(host, b.Image, img, opts...)
}

// DBBundles pushes bundles (DBBundle) with a few pushes at once.
func DBBundles(host string, bundles []dbbuild.Bundle, opts ...remote.Option) error {
	var g errgroup.Group
	g.SetLimit(8)
	for _, b := range bundles {
		g.Go(func() error { return DBBundle(host, b, opts...) })
	}
	return g.Wait()
}

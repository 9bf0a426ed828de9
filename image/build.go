package image

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// Paths and command of the images Build makes.
const (
	ConfigsPath = "/configs"
	CachePath   = "/tmp/cache"
	BinaryPath  = "/bin/olmcat"
	// OPMPath and ProbePath are hard links to BinaryPath in every image
	// olmcat builds: the binary runs as opm and as grpc_health_probe
	// under those names (what OLM execs in catalog pods and in its opm
	// image).
	OPMPath   = "/bin/opm"
	ProbePath = "/bin/grpc_health_probe"
	ServePort = "50051/tcp"
	// SearchPath is the PATH in the config of the images olmcat builds
	// (the runtimes' default, which distroless images set too): OLM's
	// probes exec grpc_health_probe by name.
	SearchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
)

// BuildOption configures Build.
type BuildOption func(*buildOptions)

type buildOptions struct {
	platforms  []v1.Platform
	binaries   map[string]string
	baseImage  string
	pull       []Option
	created    time.Time
	serveCache CacheBuilder
	tempDir    string
	note       func(string)
}

// CacheBuilder writes the serve cache of the configs in dir to cacheDir
// (and what it keeps beside it, in siblings of cacheDir: they are shipped
// beside CachePath) and reports whether it verified that the cache
// matches them (the server's own builder, declcfgquery.PrebuildCache, in
// olmcat build: opm's cache at CachePath, olmcat's snapshot beside it).
// A cache not verified is not shipped.
type CacheBuilder func(ctx context.Context, dir, cacheDir string) (ok bool, err error)

// WithPlatforms builds one image per platform, in an image index.
func WithPlatforms(ps ...v1.Platform) BuildOption {
	return func(o *buildOptions) { o.platforms = ps }
}

// WithBinary names the static olmcat binary serving the catalog in the
// image for platform p (self-serving images only).
func WithBinary(p v1.Platform, path string) BuildOption {
	return func(o *buildOptions) { o.binaries[platformString(p)] = path }
}

// WithBaseImage puts the configs on this image (an opm image) instead of
// making a self-serving image; it is pulled with pull.
func WithBaseImage(ref string, pull ...Option) BuildOption {
	return func(o *buildOptions) { o.baseImage, o.pull = ref, pull }
}

// WithCreated sets the images' creation time and every file's time
// (default the Unix epoch, so the same input gives the same digest).
func WithCreated(t time.Time) BuildOption { return func(o *buildOptions) { o.created = t.UTC() } }

// WithServeCache ships a serve cache pre-built by build from the configs
// (staged with the image's file times) in self-serving images, when
// build verified it matches them. Without it no cache is shipped.
func WithServeCache(build CacheBuilder) BuildOption {
	return func(o *buildOptions) { o.serveCache = build }
}

// WithBuildTempDir keeps Build's temporary files in dir (default
// os.TempDir()).
func WithBuildTempDir(dir string) BuildOption { return func(o *buildOptions) { o.tempDir = dir } }

// WithBuildNotes has fn called with a sentence for each temporary
// directory of an earlier, killed build that Build or BuildTreeImage
// removes before it starts, e.g. to tell the user.
func WithBuildNotes(fn func(string)) BuildOption { return func(o *buildOptions) { o.note = fn } }

// Built is a catalog image index. Its layers are backed by temporary
// files: Close removes them once the index is pushed or written.
type Built struct {
	// Index holds one image per platform.
	Index v1.ImageIndex
	// ServeCache reports whether a pre-built serve cache is shipped.
	ServeCache bool
	dir        *tempdir.Dir // the marked temporary directory
}

// Close removes the temporary files.
func (b *Built) Close() error {
	if b == nil {
		return nil
	}
	return b.dir.Remove()
}

// Build makes a catalog image index from the declarative config
// directory dir, which the caller has validated. By default each image is
// self-serving: the platform's static olmcat binary as entrypoint serving
// /configs (olmcat serve /configs, with a pre-built serve cache at
// /tmp/cache when it matches), labelled with the configs label. With
// WithBaseImage the configs are added to that image instead, replacing
// any /configs and /tmp/cache it has (whiteouts), with opm's entrypoint,
// and opm's command without a cache (olmcat cannot build opm's cache, and
// a missing cache makes opm fail). Entries are sorted
// and every time is WithCreated's, so the same input gives the same
// digests.
func Build(ctx context.Context, dir string, opts ...BuildOption) (_ *Built, err error) {
	o, b, err := newBuild(opts)
	if err != nil {
		return nil, err
	}
	tmp := b.dir.Path
	defer func() {
		// b itself: a "return nil, err" has set the result to nil already.
		if err != nil {
			b.Close()
		}
	}()
	layers, err := catalogLayers(ctx, dir, tmp, &o, b)
	if err != nil {
		return nil, err
	}
	b.Index, err = o.index(func(p v1.Platform) (v1.Image, error) {
		return o.platformImage(ctx, p, layers, b.ServeCache, tmp)
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

// newBuild applies opts and makes the build's marked temporary
// directory, which the returned Built owns.
func newBuild(opts []BuildOption) (buildOptions, *Built, error) {
	o := buildOptions{binaries: map[string]string{}, created: time.Unix(0, 0).UTC()}
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.platforms) == 0 {
		return o, nil, errors.New("build: no platform")
	}
	work, err := newTempDir(o.tempDir, buildPrefix, o.note)
	if err != nil {
		return o, nil, fmt.Errorf("build: %w", err)
	}
	return o, &Built{dir: work}, nil
}

// index is the OCI image index of image(p) for each platform, in order.
func (o *buildOptions) index(image func(v1.Platform) (v1.Image, error)) (v1.ImageIndex, error) {
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range o.platforms {
		img, err := image(p)
		if err != nil {
			return nil, err
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant}}})
	}
	return idx, nil
}

// baseWhiteouts hide what a base image holds at the catalog's paths: its
// own /configs (an opaque directory: none of the base's files shows
// through the new catalog) and its /tmp/cache, a serve cache of those old
// configs (OLM's extractContent copies it; opm rejects it). Without them
// the image serves the union of both catalogs.
var baseWhiteouts = []layerFile{
	{name: ConfigsPath[1:] + "/" + opaqueWhiteout, mode: 0o644, whiteout: true},
	{name: path.Join(path.Dir(CachePath[1:]), whiteoutPrefix+path.Base(CachePath)), mode: 0o644, whiteout: true},
}

// catalogLayers stages the configs with the build's file times, makes
// their layer and, for self-serving images, the serve cache layer when
// the cache is verified to match the staged configs.
func catalogLayers(ctx context.Context, dir, tmp string, o *buildOptions, b *Built) ([]v1.Layer, error) {
	staged := filepath.Join(tmp, "configs")
	if err := stageTree(dir, staged, o.created); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	files, err := treeFiles(staged, ConfigsPath[1:])
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	if o.baseImage != "" {
		files = append(files, baseWhiteouts...)
	}
	configs, err := reproducibleLayer(files, o.created, tmp)
	if err != nil {
		return nil, fmt.Errorf("build: configs layer: %w", err)
	}
	layers := []v1.Layer{configs}
	if o.baseImage != "" || o.serveCache == nil {
		return layers, nil
	}
	// The cache builder writes CachePath and any sibling of it (olmcat's
	// snapshot, where opm does not look) under cacheRoot, which is /tmp.
	cacheRoot := filepath.Join(tmp, "cacheroot")
	ok, err := o.serveCache(ctx, staged, filepath.Join(cacheRoot, path.Base(CachePath)))
	if err != nil {
		return nil, fmt.Errorf("build: serve cache: %w", err)
	}
	if !ok {
		return layers, nil
	}
	files, err = treeFiles(cacheRoot, path.Dir(CachePath)[1:])
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	files[0].mode = 0o1777 // /tmp
	cacheLayer, err := reproducibleLayer(files, o.created, tmp)
	if err != nil {
		return nil, fmt.Errorf("build: cache layer: %w", err)
	}
	b.ServeCache = true
	return append(layers, cacheLayer), nil
}

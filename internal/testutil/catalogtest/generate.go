package catalogtest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/testutil/dbbuild"
)

// DefaultBundlesPerPackage is the number of bundles per generated package
// unless WithBundlesPerPackage says otherwise.
const DefaultBundlesPerPackage = 25

// imagePrefix starts the image of every generated bundle:
// "<imagePrefix><pkg>-bundle:v1.<j>.0" (the tests that push the bundles
// mirror it to a loopback registry).
const imagePrefix = "example.com/olmcat-bench/"

// Option configures Generate.
type Option func(*config)

type config struct {
	packages, bundles, perPackage, channels             int
	everyBundleInEveryChannel, noImages, skips, csvOnly bool
	baseDir                                             string
	manifestBytes                                       int
}

// WithPackages sets the number of packages (default 1), each of
// WithBundlesPerPackage bundles. WithBundles overrides it.
func WithPackages(n int) Option { return func(c *config) { c.packages = n } }

// WithBundles sets the total number of bundles: packages of
// WithBundlesPerPackage bundles each, the last one possibly smaller.
func WithBundles(n int) Option { return func(c *config) { c.bundles = n } }

// WithBundlesPerPackage sets the bundles of each package (default
// DefaultBundlesPerPackage), which are also the entries of its default
// channel "stable".
func WithBundlesPerPackage(n int) Option { return func(c *config) { c.perPackage = n } }

// WithChannels sets the channels of each package (default 2): "stable"
// (the default channel, every bundle), "fast", then "channel-2",
// "channel-3"... Channel c holds the newest bundles from index
// c*count/channels on, its first entry replacing nothing, unless
// WithEveryBundleInEveryChannel.
func WithChannels(n int) Option { return func(c *config) { c.channels = n } }

// WithEveryBundleInEveryChannel puts every bundle in every channel with the
// same edges: the shape of the benchmark legacy index, whose bundles all
// carry the channels annotation "stable,fast".
func WithEveryBundleInEveryChannel() Option {
	return func(c *config) { c.everyBundleInEveryChannel = true }
}

// WithSkips makes every bundle but the first of a package skip the absent
// "<pkg>.v1.<j-1>.1" (a skip of a bundle that is also replaced would cut
// the replaces chain and strand bundles under opm's validation rules).
func WithSkips() Option { return func(c *config) { c.skips = true } }

// WithoutImages leaves every bundle's image empty: a registry serving the
// catalog sends the bundles' manifests inline (ListBundles then streams
// csvJson and objects, large messages), and a legacy index stores no
// bundlepath.
func WithoutImages() Option { return func(c *config) { c.noImages = true } }

// WithBaseDir derives every bundle's manifests from the bundle directory
// dir (manifests/ and metadata/, as dbbuild.ReadBundleDir reads it; the
// benchmarks use the etcd 0.9.2 bundle of fixtures/bundles/opm-bundles)
// instead of the built-in manifests. Its dependencies and properties go to
// every legacy bundle (DBBundles).
func WithBaseDir(dir string) Option { return func(c *config) { c.baseDir = dir } }

// WithManifestBytes sizes the built-in manifests (a ClusterServiceVersion,
// a CustomResourceDefinition, a Service and a ConfigMap) to about n bytes
// of JSON per bundle, padded in the CSV description and the CRD schema
// (default 8,500: some 14 KB of catalog per bundle, near the average of
// a real community catalog's migration; 0 gives minimal manifests).
func WithManifestBytes(n int) Option { return func(c *config) { c.manifestBytes = n } }

// WithCSVOnly gives every bundle one manifest, its ClusterServiceVersion,
// leaving out the base's other manifests.
func WithCSVOnly() Option { return func(c *config) { c.csvOnly = true } }

// Package is one generated package.
type Package struct {
	Name           string
	DefaultChannel string
	Channels       []Channel
	Bundles        []Bundle
}

// Channel is one channel of a package, its entries oldest first.
type Channel struct {
	Name    string
	Entries []ChannelEntry
}

// ChannelEntry is a channel entry: the bundle and its upgrade edges.
type ChannelEntry struct {
	Name, Replaces string
	Skips          []string
}

// Bundle is one generated bundle.
type Bundle struct {
	Name, Package, Version string
	// Image is the bundle image ("" under WithoutImages).
	Image string
	// Channels names the channels holding the bundle.
	Channels []string
	// Objects are the manifests as JSON, the ClusterServiceVersion last.
	// Unchanged manifests are shared between the bundles of a package.
	Objects []json.RawMessage
	// Provided and Required are the APIs of the CSV.
	Provided, Required []manifest.GVK
	// RelatedImages are the images the CSV names.
	RelatedImages []string
	// Properties and Dependencies are the base bundle's metadata (none for
	// the built-in manifests).
	Properties   []dbbuild.Property
	Dependencies []dbbuild.Dependency
}

// CSV returns the bundle's ClusterServiceVersion.
func (b Bundle) CSV() json.RawMessage { return b.Objects[len(b.Objects)-1] }

// Catalog is a generated catalog: a deterministic function of its options
// (same options, same bytes), made package by package on demand so that
// writing a large one keeps memory flat.
type Catalog struct {
	cfg  config
	base *base
}

// Generate prepares the synthetic catalog the options describe: bundle j
// of package "pkg-%04d" is "<pkg>.v1.<j>.0", version 1.<j>.0; it replaces
// bundle j-1 (and skips as WithSkips says). Its CSV carries those edges,
// the API group of the base manifests is renamed per package
// ("<pkg>.bench.example.com") and image digests are unique per bundle.
// The graph is valid.
func Generate(opts ...Option) (*Catalog, error) {
	c := config{packages: 1, perPackage: DefaultBundlesPerPackage, channels: 2, manifestBytes: 8500}
	for _, o := range opts {
		o(&c)
	}
	if c.perPackage < 1 || c.channels < 1 || c.packages < 0 || c.bundles < 0 || c.manifestBytes < 0 {
		return nil, fmt.Errorf("catalogtest: bundles per package (%d) and channels (%d) must be positive, packages (%d), bundles (%d) and manifest bytes (%d) not negative",
			c.perPackage, c.channels, c.packages, c.bundles, c.manifestBytes)
	}
	if c.bundles == 0 {
		c.bundles = c.packages * c.perPackage
	}
	var (
		b   *base
		err error
	)
	if c.baseDir != "" {
		b, err = readBase(c.baseDir)
	} else {
		b, err = builtinBase(c.manifestBytes)
	}
	if err != nil {
		return nil, err
	}
	return &Catalog{cfg: c, base: b}, nil
}

// NumPackages is the number of packages.
func (c *Catalog) NumPackages() int { return (c.cfg.bundles + c.cfg.perPackage - 1) / c.cfg.perPackage }

// NumBundles is the number of bundles.
func (c *Catalog) NumBundles() int { return c.cfg.bundles }

// Packages yields the packages in order, each made when reached.
func (c *Catalog) Packages() iter.Seq[Package] {
	return func(yield func(Package) bool) {
		for p := range c.NumPackages() {
			if !yield(c.pkg(p)) {
				return
			}
		}
	}
}

// channelName names channel k of a package.
func channelName(k int) string {
	switch k {
	case 0:
		return "stable"
	case 1:
		return "fast"
	}
	return fmt.Sprintf("channel-%d", k)
}

// pkg makes package p.
func (c *Catalog) pkg(p int) Package {
	name := fmt.Sprintf("pkg-%04d", p)
	count := min(c.cfg.perPackage, c.cfg.bundles-p*c.cfg.perPackage)
	out := Package{Name: name, DefaultChannel: channelName(0)}
	starts := make([]int, c.cfg.channels)
	for k := range starts {
		if !c.cfg.everyBundleInEveryChannel {
			starts[k] = k * count / c.cfg.channels
		}
		out.Channels = append(out.Channels, Channel{Name: channelName(k)})
	}
	objs, provided, required := c.base.forPackage(name)
	if c.cfg.csvOnly {
		objs = nil
	}
	for j := range count {
		b := c.bundle(name, j, objs)
		b.Provided, b.Required = provided, required
		for k, start := range starts {
			if j < start {
				continue
			}
			e := ChannelEntry{Name: b.Name}
			if j > 0 {
				if c.cfg.skips {
					e.Skips = []string{fmt.Sprintf("%s.v1.%d.1", name, j-1)}
				}
				if j > start {
					e.Replaces = fmt.Sprintf("%s.v1.%d.0", name, j-1)
				}
			}
			out.Channels[k].Entries = append(out.Channels[k].Entries, e)
			b.Channels = append(b.Channels, out.Channels[k].Name)
		}
		out.Bundles = append(out.Bundles, b)
	}
	return out
}

// bundle makes bundle j of package pkg from the package's non-CSV objects.
func (c *Catalog) bundle(pkg string, j int, pkgObjs []json.RawMessage) Bundle {
	name := fmt.Sprintf("%s.v1.%d.0", pkg, j)
	version := fmt.Sprintf("1.%d.0", j)
	pairs := []string{phName, name, phVersion, version, phGroup, packageGroup(pkg)}
	images := append([]string(nil), c.base.images...)
	for k, d := range c.base.digests {
		sum := sha256.Sum256([]byte(name + d))
		nd := hex.EncodeToString(sum[:])
		pairs = append(pairs, phDigest(k), nd)
		for i := range images {
			images[i] = strings.ReplaceAll(images[i], d, nd)
		}
	}
	tmpl := c.base.first
	switch {
	case j > 0 && c.cfg.skips:
		pairs = append(pairs, phReplaces, fmt.Sprintf("%s.v1.%d.0", pkg, j-1), phSkip, fmt.Sprintf("%s.v1.%d.1", pkg, j-1))
		tmpl = c.base.rest
	case j > 0:
		pairs = append(pairs, phReplaces, fmt.Sprintf("%s.v1.%d.0", pkg, j-1))
		tmpl = c.base.replaces
	}
	csv := json.RawMessage(strings.NewReplacer(pairs...).Replace(tmpl))
	objs := make([]json.RawMessage, 0, len(pkgObjs)+1)
	objs = append(objs, pkgObjs...)
	objs = append(objs, csv)
	b := Bundle{
		Name: name, Package: pkg, Version: version, Objects: objs, RelatedImages: images,
		Properties: c.base.properties, Dependencies: c.base.dependencies,
	}
	if !c.cfg.noImages {
		b.Image = fmt.Sprintf("%s%s-bundle:v1.%d.0", imagePrefix, pkg, j)
	}
	return b
}

// packageGroup is the API group of package pkg.
func packageGroup(pkg string) string { return pkg + ".bench.example.com" }

// LegacyBenchIndex is the shape of the benchmark legacy index
// (scripts/gen-bench-db.sh): manifests derived from the bundle directory
// baseDir (the etcd 0.9.2 bundle of fixtures/bundles/opm-bundles), every
// bundle in channels stable and fast, with skips.
func LegacyBenchIndex(baseDir string) Option {
	return func(c *config) {
		WithBaseDir(baseDir)(c)
		WithEveryBundleInEveryChannel()(c)
		WithSkips()(c)
	}
}

// MustGenerate is Generate for tests: it fails tb on an error.
func MustGenerate(tb testing.TB, opts ...Option) *Catalog {
	tb.Helper()
	c, err := Generate(opts...)
	require.NoError(tb, err)
	return c
}

// Dir writes the catalog the options describe into a new temporary
// directory of tb in opm's layout and returns the directory.
func Dir(tb testing.TB, opts ...Option) string {
	tb.Helper()
	dir := tb.TempDir()
	require.NoError(tb, MustGenerate(tb, opts...).WriteDir(dir))
	return dir
}

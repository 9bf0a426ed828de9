package migrate

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Migration levels accepted by WithMigrateLevel, as opm names them.
const (
	// MigrateLevelNone keeps bundle manifests as olm.bundle.object properties.
	MigrateLevelNone = "none"
	// MigrateLevelCSVMetadata replaces the olm.bundle.object properties of
	// bundles that have an image and a CSV by one olm.csv.metadata property.
	MigrateLevelCSVMetadata = "bundle-object-to-csv-metadata"
	// MigrateLevelAll applies every migration (today: the same as
	// MigrateLevelCSVMetadata).
	MigrateLevelAll = "all"
)

// MigrateLevels lists the accepted migration levels in order.
var MigrateLevels = []string{MigrateLevelNone, MigrateLevelCSVMetadata, MigrateLevelAll}

// Option configures Migrate and Render.
type Option func(*options)

type options struct {
	layout                   declcfg.Layout
	format                   declcfg.Format
	migrateLevel             string
	keepDeprecated           bool
	force                    bool
	dropInvalidRelatedImages bool
	dropInvalidBundles       bool
	workers                  int
	// arenas lets conversion build bundle object values in recycled
	// arenas; set by the entry points that release them after writing.
	arenas       bool
	progress     func(done, total int)
	beforeCommit func(ctx context.Context, dir string) error
	// packageGraphs sees each package's graphs (WithPackageGraphs).
	packageGraphs func(before, after *declcfg.DeclarativeConfig)
}

func newOptions(opts []Option) (*options, error) {
	o := &options{
		layout:       declcfg.LayoutOPM,
		format:       declcfg.FormatJSON,
		migrateLevel: MigrateLevelNone,
		workers:      2,
	}
	for _, opt := range opts {
		opt(o)
	}
	switch o.migrateLevel {
	case "", MigrateLevelNone:
		o.migrateLevel = MigrateLevelNone
	case MigrateLevelCSVMetadata, MigrateLevelAll:
	default:
		return nil, fmt.Errorf("unknown migrate level %q (want one of %v)", o.migrateLevel, MigrateLevels)
	}
	if o.workers < 1 {
		o.workers = 1
	}
	return o, nil
}

// csvMetadata reports whether bundle objects become olm.csv.metadata.
func (o *options) csvMetadata() bool { return o.migrateLevel != MigrateLevelNone }

// WithLayout selects the output directory layout (default declcfg.LayoutOPM:
// <package>/catalog.<ext>, what opm migrate wrote).
func WithLayout(l declcfg.Layout) Option { return func(o *options) { o.layout = l } }

// WithFormat selects JSON (default) or YAML output.
func WithFormat(f declcfg.Format) Option { return func(o *options) { o.format = f } }

// WithMigrateLevel applies opm's optional declarative config migrations up
// to level: MigrateLevelNone (default), MigrateLevelCSVMetadata or
// MigrateLevelAll.
func WithMigrateLevel(level string) Option { return func(o *options) { o.migrateLevel = level } }

// WithKeepDeprecated keeps bundles the legacy index marked deprecated (opm
// dropped them): they stay in their channels with their olm.deprecated
// property, and the package gets an olm.deprecations blob listing them.
func WithKeepDeprecated(keep bool) Option { return func(o *options) { o.keepDeprecated = keep } }

// WithForce lets Migrate replace an existing non-empty output directory.
func WithForce(force bool) Option { return func(o *options) { o.force = force } }

// WithDropInvalidRelatedImages drops related images whose pull spec is not
// a valid image reference (each drop is reported) instead of failing.
func WithDropInvalidRelatedImages(drop bool) Option {
	return func(o *options) { o.dropInvalidRelatedImages = drop }
}

// WithDropInvalidBundles drops bundles that cannot be served (invalid
// image reference, version, skipRange or properties, or neither image nor
// manifests; each drop is reported) instead of failing. A drop that breaks
// a channel's upgrade graph is still a problem.
func WithDropInvalidBundles(drop bool) Option {
	return func(o *options) { o.dropInvalidBundles = drop }
}

// WithWorkers sets how many packages are converted at the same time
// (default 2). Output does not depend on it.
func WithWorkers(n int) Option { return func(o *options) { o.workers = n } }

// WithProgress calls fn after each package is converted with the number of
// packages done and the total. Calls come from one goroutine at a time.
func WithProgress(fn func(done, total int)) Option { return func(o *options) { o.progress = fn } }

// WithBeforeCommit runs fn on the fully written and validated temporary
// output directory, before it is renamed into place; an error aborts the
// migration and removes the directory. migrate --verify uses it to check
// parity before anything becomes visible.
func WithBeforeCommit(fn func(ctx context.Context, dir string) error) Option {
	return func(o *options) { o.beforeCommit = fn }
}

// WithPackageGraphs calls fn for every converted package with two views of
// its upgrade graphs: before, the channels as the legacy database served
// them (every bundle with a channel entry and a row, deprecated ones
// included, with the edges opm derived from channel_entry), and after, the
// converted package. Only the graph blobs of before are filled (package,
// channels, bundles with their olm.package property, deprecations).
// fn runs in the worker goroutines, concurrently, before the package is
// written; it must not keep after, whose memory is reused.
func WithPackageGraphs(fn func(before, after *declcfg.DeclarativeConfig)) Option {
	return func(o *options) { o.packageGraphs = fn }
}

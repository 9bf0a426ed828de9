package migrate

import (
	"context"
	"fmt"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Level is a declarative config migration level, as opm names them.
type Level string

// Migration levels accepted by WithMigrateLevel.
const (
	// MigrateLevelNone keeps bundle manifests as olm.bundle.object properties.
	MigrateLevelNone Level = "none"
	// MigrateLevelCSVMetadata replaces the olm.bundle.object properties of
	// bundles that have an image and a CSV by one olm.csv.metadata property.
	MigrateLevelCSVMetadata Level = "bundle-object-to-csv-metadata"
	// MigrateLevelAll applies every migration (today: the same as
	// MigrateLevelCSVMetadata).
	MigrateLevelAll Level = "all"
)

// MigrateLevels lists the accepted migration levels in order.
var MigrateLevels = []Level{MigrateLevelNone, MigrateLevelCSVMetadata, MigrateLevelAll}

// ParseLevel returns the level named s ("" is MigrateLevelNone).
func ParseLevel(s string) (Level, error) {
	if s == "" {
		return MigrateLevelNone, nil
	}
	for _, l := range MigrateLevels {
		if string(l) == s {
			return l, nil
		}
	}
	names := make([]string, len(MigrateLevels))
	for i, l := range MigrateLevels {
		names[i] = string(l)
	}
	return "", fmt.Errorf("unknown migrate level %q (want one of %s)", s, strings.Join(names, ", "))
}

// Option configures Migrate and Render.
type Option func(*options)

type options struct {
	layout                   declcfg.Layout
	format                   declcfg.Format
	migrateLevel             Level
	keepDeprecated           bool
	force                    bool
	dropInvalidRelatedImages bool
	dropInvalidBundles       bool
	workers                  int
	progress                 func(done, total int)
	beforeCommit             func(ctx context.Context, dir string) error
	// migrateOnly names the options given that only Migrate honours
	// (Render and Load refuse them rather than ignore them).
	migrateOnly []string
	// packages limits the conversion to these packages (WithPackages).
	packages map[string]bool
	// packageGraphs see each package's graphs (WithPackageGraphs).
	packageGraphs []func(before, after *declcfg.DeclarativeConfig)
	// unread names the packages Each hands over unread (WithUnread).
	unread func(pkg string) bool
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
	level, err := ParseLevel(string(o.migrateLevel))
	if err != nil {
		return nil, err
	}
	o.migrateLevel = level
	if o.workers < 1 {
		o.workers = 1
	}
	return o, nil
}

// csvMetadata reports whether bundle objects become olm.csv.metadata.
func (o *options) csvMetadata() bool { return o.migrateLevel != MigrateLevelNone }

// WithLayout selects the output directory layout (default declcfg.LayoutOPM:
// <package>/catalog.<ext>, what opm migrate wrote). Migrate only.
func WithLayout(l declcfg.Layout) Option {
	return func(o *options) { o.layout = l; o.migrateOnly = append(o.migrateOnly, "WithLayout") }
}

// WithFormat selects JSON (default) or YAML output.
func WithFormat(f declcfg.Format) Option { return func(o *options) { o.format = f } }

// WithMigrateLevel applies opm's optional declarative config migrations up
// to level: MigrateLevelNone (default), MigrateLevelCSVMetadata or
// MigrateLevelAll.
func WithMigrateLevel(level Level) Option { return func(o *options) { o.migrateLevel = level } }

// WithKeepDeprecated keeps bundles the legacy index marked deprecated (opm
// dropped them): they stay in their channels with their olm.deprecated
// property, and the package gets an olm.deprecations blob listing them.
func WithKeepDeprecated(keep bool) Option { return func(o *options) { o.keepDeprecated = keep } }

// WithForce lets Migrate replace an existing non-empty output directory.
// Migrate only.
func WithForce(force bool) Option {
	return func(o *options) { o.force = force; o.migrateOnly = append(o.migrateOnly, "WithForce") }
}

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
// parity before anything becomes visible. Migrate only.
func WithBeforeCommit(fn func(ctx context.Context, dir string) error) Option {
	return func(o *options) { o.beforeCommit = fn; o.migrateOnly = append(o.migrateOnly, "WithBeforeCommit") }
}

// WithPackageGraphs calls fn for every converted package with two views of
// its upgrade graphs: before, the channels as the legacy database served
// them (every bundle with a channel entry and a row, deprecated ones
// included, with the edges opm derived from channel_entry), and after, the
// converted package. Only the graph blobs of before are filled (package,
// channels, bundles with their olm.package property, deprecations).
// fn runs in the worker goroutines, concurrently, before the package is
// written; it must not keep after, whose memory is reused. Each
// WithPackageGraphs adds a callback; they run in the order given.
func WithPackageGraphs(fn func(before, after *declcfg.DeclarativeConfig)) Option {
	return func(o *options) { o.packageGraphs = append(o.packageGraphs, fn) }
}

// refuseMigrateOnly is the error of Render and Load (named what) when
// given an option only Migrate honours.
func (o *options) refuseMigrateOnly(what string) error {
	if len(o.migrateOnly) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %s applies to Migrate only", what, strings.Join(o.migrateOnly, ", "))
}

// refuseEachOnly is the error of Migrate, Render and Load (named what)
// when given an option only Each honours.
func (o *options) refuseEachOnly(what string) error {
	if o.unread == nil {
		return nil
	}
	return fmt.Errorf("%s: WithUnread applies to Each only", what)
}

// WithUnread makes Each hand fn, for each package unread names, no blobs
// (nil) instead of reading and converting it: a caller that drops some
// packages whatever they hold (a prune) reads only the others. The
// report then counts, repairs and checks only the packages read, and the
// database-wide repairs. Each only.
func WithUnread(unread func(pkg string) bool) Option {
	return func(o *options) { o.unread = unread }
}

// WithPackages converts only the named packages (for Load and Render:
// looking at some packages of a large database). The database-wide repairs
// are still reported.
func WithPackages(names ...string) Option {
	return func(o *options) {
		o.packages = map[string]bool{}
		for _, n := range names {
			o.packages[n] = true
		}
	}
}

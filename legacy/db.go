package legacy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/jmoiron/sqlx"
	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/sqlitefile"
	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is a legacy index database opened read-only.
//
// Open reads the package and channel rows and a rowid index of the other
// tables (see the package doc, "What is read where"); ReadPackage reads
// one package's rows by rowid ranges and its bundles' csv and bundle
// columns by primary key, so memory stays bounded by the packages being
// read.
//
// After Open a DB is immutable: ReadPackage, PackageNames and
// BundleManifests are safe for concurrent use by multiple goroutines.
type DB struct {
	path   string
	opened os.FileInfo // the file as it was when opened, for Unchanged
	level  int
	db     *sqlx.DB
	opts   openOptions
	sch    schemaInfo

	pkgs     map[string]Package
	names    []string
	channels map[string][]Channel      // by package
	entries  map[string][]ChannelEntry // by package, entry_id order
	tip      int64                     // minimum depth over the whole channel_entry table
	entryPkg map[string]string         // bundle name -> a package whose entries name it

	// tables holds every bundle's rows when the DB was opened eagerly;
	// a lazy DB fills a tables value per ReadPackage instead (see lazy).
	tables
	// lazy is the rowid index when the DB reads packages by rowid ranges.
	lazy *lazyIndex
	// stmts are the prepared statements of the per-package queries.
	stmts stmtCache

	stranded    map[string][]string // package -> stranded bundle names, sorted
	strandedHow map[string]string   // bundle -> how it was attributed

	// depsValue is the single value every dependencies row holds when
	// depsCorrupt (migration 9's corruption, confirmed by api_requirer or
	// a CSV).
	depsValue   string
	depsCorrupt bool
	// depsFirst is the first dependencies row (by rowid) and the bundle it
	// belongs to: the row whose value migration 9 copied everywhere.
	depsFirst       Dependency
	depsFirstBundle string

	repairs []Repair
	// sizeHint is about the number of operatorbundle rows, to size the
	// maps Open fills once instead of growing them.
	sizeHint int
	// Repairs found by loaders running concurrently, merged into repairs.
	pkgRepairs, junkRepairs []Repair
	// keys holds what the loaders found of keyedTables' row keys, in that
	// order, for findAttachedByName.
	keys [len(keyedTables)]keyCheck
	// api rows keyed as stored (bundle name, or channel_entry_id below
	// level 6) until mapped to bundle names.
	rawProvided, rawRequired map[string][]API
}

// bundleKey is the indexed part of an operatorbundle row.
type bundleKey struct {
	version    sql.NullString
	bundlePath sql.NullString
}

// propRow is a properties row with whether its path key was NULL.
type propRow struct {
	Property
	nullPath bool
}

// Option configures Open.
type Option func(*openOptions)

type openOptions struct {
	skipManifests bool
	lazy          bool
	// eager loads every table at Open even when the database qualifies
	// for reading by rowid ranges; tests compare the two.
	eager bool
	// pageCacheKiB is each connection's page cache (PageCache); 0 is
	// sqlite's default.
	pageCacheKiB int
}

// PageCache sets the page cache of each of the DB's sqlite connections
// to kib KiB instead of sqlite's default of 2,000 KiB, for a reader that
// reads every package once (a migration): the manifests, most of an
// index, are read past the cache (overflow pages), and what it would
// keep of the rest is not asked for again, while up to four connections
// each fill their cache: a smaller cache lowers the peak for the same
// CPU (scripts/bench-index.sh).
func PageCache(kib int) Option { return func(o *openOptions) { o.pageCacheKiB = kib } }

// SkipManifests makes ReadPackage leave Bundle.CSV and Bundle.Objects nil
// (they are still read internally where needed to derive missing columns),
// for callers such as servers that fetch them on demand with
// BundleManifests (or with a package, ReadPackageWithObjects) instead of
// holding them in memory.
func SkipManifests() Option { return func(o *openOptions) { o.skipManifests = true } }

// Open opens the database at path read-only (immutable), detects its
// schema level and checks that it is a legacy index.
//
// The file is opened with sqlite's immutable flag and query_only, so its
// bytes are identical after any use. Open refuses, with an error naming
// the file, anything that is not a sqlite file, a truncated file, an empty
// database and a database lacking the legacy tables (naming them).
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) {
	var o openOptions
	for _, f := range opts {
		f(&o)
	}
	sdb, err := openSQLite(path, o.pageCacheKiB)
	if err != nil {
		return nil, err
	}
	// Two converter goroutines plus a spare; immutable readers never block.
	sdb.SetMaxOpenConns(4)
	sdb.SetMaxIdleConns(4)
	st, err := os.Stat(path)
	if err != nil {
		sdb.Close()
		return nil, err // names path already
	}
	d := &DB{path: path, db: sdb, opts: o, opened: st}
	if err := d.load(ctx); err != nil {
		sdb.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return d, nil
}

// openSQLite opens path read-only (immutable) after checking that it is a
// complete sqlite 3 file without journal sidecars.
func openSQLite(path string, pageCacheKiB int) (*sqlx.DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	ok, err := sqlitefile.Is(abs)
	if err != nil {
		return nil, fmt.Errorf("open legacy index: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("open %s: not a sqlite database file (no sqlite 3 header)", path)
	}
	if err := checkHeader(abs); err != nil {
		return nil, err
	}
	if err := checkSidecars(abs); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	sdb, err := sqlx.Open("sqlite", sqliteURI(abs, pageCacheKiB))
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	return sdb, nil
}

// CheckIndex says, without loading anything but the schema, whether path
// is a legacy index database: a complete sqlite file with the legacy
// tables. Its error is the one Open would give for the same file. Callers
// use it to tell the user about a legacy index (the deprecation warning)
// only once that is known.
func CheckIndex(ctx context.Context, path string) error {
	sdb, err := openSQLite(path, 0)
	if err != nil {
		return err
	}
	defer sdb.Close()
	sch, err := readSchema(ctx, sdb)
	if err == nil {
		err = checkTables(sch)
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	return nil
}

// checkTables refuses a schema without the legacy tables.
func checkTables(sch schemaInfo) error {
	if len(sch.tables) == 0 {
		return fmt.Errorf("empty database: no tables (a legacy index has tables %s)", strings.Join(requiredTables, ", "))
	}
	if missing := sch.missingTables(); len(missing) > 0 {
		return fmt.Errorf("not a legacy index database: missing table(s) %s", strings.Join(missing, ", "))
	}
	return nil
}

// Unchanged returns an error when the file at Path is no longer the file
// that was opened (replaced, or rewritten in place: another size or
// modification time). The database is opened immutable, so sqlite would
// otherwise read a changed file as if it had not changed: wrong answers
// or "database disk image is malformed".
func (db *DB) Unchanged() error {
	st, err := os.Stat(db.path)
	if err != nil {
		return fmt.Errorf("database %s: %w", db.path, err)
	}
	if !os.SameFile(st, db.opened) || st.Size() != db.opened.Size() || !st.ModTime().Equal(db.opened.ModTime()) {
		return fmt.Errorf("database %s changed on disk since it was opened; restart to serve the new file", db.path)
	}
	return nil
}

// Path is the file the database was opened from.
func (db *DB) Path() string { return db.path }

// Level is the schema level: schema_migrations.version 0..13, or -1 when
// the table is missing or empty.
func (db *DB) Level() int { return db.level }

// HasTable reports whether the database holds the table (lower-case name);
// callers use it to tell stored data from derived data.
func (db *DB) HasTable(table string) bool { return db.sch.has(strings.ToLower(table)) }

// HasColumn reports whether table has the column (lower-case names).
func (db *DB) HasColumn(table, column string) bool {
	return db.sch.col(strings.ToLower(table), strings.ToLower(column))
}

// PackageNames lists every package row's name, sorted.
func (db *DB) PackageNames(ctx context.Context) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return append([]string(nil), db.names...), nil
}

// Repairs are the database-wide repairs found by Open (for example
// migration-5 junk rows). Per-package repairs are in PackageData.Repairs.
func (db *DB) Repairs() []Repair { return append([]Repair(nil), db.repairs...) }

// Close closes the database.
func (db *DB) Close() error {
	if db == nil || db.db == nil {
		return nil
	}
	db.stmts.close()
	return db.db.Close()
}

// BundleManifests returns the csv column and the bundle column split into
// objects for one operatorbundle row; nil values when the columns are NULL.
func (db *DB) BundleManifests(ctx context.Context, bundleName string) (csv []byte, objects [][]byte, err error) {
	c, b, err := db.bundleColumns(ctx, bundleName)
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil, fmt.Errorf("read %s: bundle %q: no operatorbundle row", db.path, bundleName)
		}
		return nil, nil, fmt.Errorf("read %s: bundle %q: %w", db.path, bundleName, err)
	}
	objects, err = SplitObjects(b)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: bundle %q: bundle column: %w", db.path, bundleName, err)
	}
	return c, objects, nil
}

// BundleCSV returns the csv column of one operatorbundle row (nil when
// NULL) without reading its bundle column: what opm's GetBundleForChannel
// serves, which a bundle column that does not split cannot fail.
func (db *DB) BundleCSV(ctx context.Context, bundleName string) ([]byte, error) {
	var c blob
	err := db.firstRow(ctx, `SELECT csv FROM operatorbundle WHERE name = ?`, bundleName, &c)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("read %s: bundle %q: no operatorbundle row", db.path, bundleName)
	case err != nil:
		return nil, fmt.Errorf("read %s: bundle %q: %w", db.path, bundleName, err)
	}
	return c.b, nil
}

// load reads the schema and the small tables.
func (d *DB) load(ctx context.Context) error {
	sch, err := readSchema(ctx, d.db)
	if err != nil {
		return err
	}
	d.sch = sch
	if err := checkTables(sch); err != nil {
		return err
	}
	if d.level, err = readLevel(ctx, d.db, sch); err != nil {
		return err
	}
	// max(rowid) is a B-tree edge lookup, not a scan.
	var maxRowid sql.NullInt64
	if err := d.db.GetContext(ctx, &maxRowid, `SELECT max(rowid) FROM operatorbundle`); err != nil {
		return fmt.Errorf("read table operatorbundle: %w", err)
	}
	d.sizeHint = int(min(max(maxRowid.Int64, 0), 1<<20))
	ok, err := d.lazyEligible(ctx)
	if err != nil {
		return err
	}
	if ok && !d.opts.eager {
		return d.loadIndexed(ctx)
	}
	// The bundle keys (read from an index, quick) come first: the loaders
	// of the keyed tables check their rows' keys against them.
	if err := d.loadBundleKeys(ctx); err != nil {
		return err
	}
	for i := range d.keys {
		d.keys[i].match = matchRows(d.rows)
	}
	// The loaders fill disjoint fields; on two cores running them on
	// separate connections halves Open on large indexes.
	g, gctx := errgroup.WithContext(ctx)
	for _, step := range []func(context.Context) error{
		d.loadEntries, d.loadProperties, d.loadAPIs, d.loadPackages,
		d.loadDependencies, d.loadRelatedImages, d.loadDeprecated,
	} {
		g.Go(func() error { return step(gctx) })
	}
	if err := g.Wait(); err != nil {
		return err
	}
	d.repairs = append(append(d.repairs, d.pkgRepairs...), d.junkRepairs...)
	d.mapAPIs()
	entryCount := make(map[string]int, len(d.entries))
	for p, es := range d.entries {
		entryCount[p] = len(es)
	}
	d.findOrphans(&d.tables, entryCount)
	for _, step := range []func(context.Context) error{
		func(ctx context.Context) error { return d.findStranded(ctx, nil) },
		d.checkDependencies, d.findAttachedByName,
	} {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return nil
}

// apiKeyedByEntry reports whether the api tables predate level 6 (keyed by
// channel_entry_id), in which case bundles without entries have no rows.
func (d *DB) apiKeyedByEntry() bool {
	return d.sch.has("api_provider") && !d.sch.col("api_provider", "operatorbundle_name")
}

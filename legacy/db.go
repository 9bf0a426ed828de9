package legacy

import (
	"context"
	"errors"
)

// errTODO marks the reader API contract until the implementation lands.
var errTODO = errors.New("legacy: reader not implemented yet")

// DB is a legacy index database opened read-only.
type DB struct {
	path  string
	level int
}

// Option configures Open.
type Option func(*openOptions)

type openOptions struct {
	skipManifests bool
}

// SkipManifests makes ReadPackage leave Bundle.CSV and Bundle.Objects nil
// (they are still read internally where needed to derive missing columns),
// for callers such as servers that fetch them on demand with
// BundleManifests instead of holding them in memory.
func SkipManifests() Option { return func(o *openOptions) { o.skipManifests = true } }

// Open opens the database at path read-only (immutable), detects its
// schema level and checks that it is a legacy index.
func Open(ctx context.Context, path string, opts ...Option) (*DB, error) { return nil, errTODO }

// Path is the file the database was opened from.
func (db *DB) Path() string { return db.path }

// Level is the schema level: schema_migrations.version 0..13, or -1 when
// the table is missing.
func (db *DB) Level() int { return db.level }

// PackageNames lists every package row's name, sorted.
func (db *DB) PackageNames(ctx context.Context) ([]string, error) { return nil, errTODO }

// ReadPackage reads everything the database holds for one package.
func (db *DB) ReadPackage(ctx context.Context, name string) (*PackageData, error) {
	return nil, errTODO
}

// BundleManifests returns the csv column and the bundle column split into
// objects for one operatorbundle row; nil values when the columns are NULL.
func (db *DB) BundleManifests(ctx context.Context, bundleName string) (csv []byte, objects [][]byte, err error) {
	return nil, nil, errTODO
}

// Repairs are the database-wide repairs found by Open (for example
// migration-5 junk rows). Per-package repairs are in PackageData.Repairs.
func (db *DB) Repairs() []Repair { return nil }

// Close closes the database.
func (db *DB) Close() error { return nil }

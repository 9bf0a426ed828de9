package input

// Kind is what an argument names. The values are the words reports and
// logs print (parity's JSON result carries them).
type Kind string

// The kinds Classify and Resolve tell apart. A new input kind is one more
// constant here plus its case in Classify (or in Resolve, for what only
// pulling tells) and in the callers' switches.
const (
	// KindDeclcfg is a declarative config (file-based catalog) directory,
	// or the configs directory of a catalog image.
	KindDeclcfg Kind = "declcfg"
	// KindDeclcfgFile is a regular file that is not a sqlite database: a
	// single declarative config blob stream (JSON or YAML).
	KindDeclcfgFile Kind = "declcfg-file"
	// KindSQLite is a legacy sqlite index database file, or the database
	// of a catalog image.
	KindSQLite Kind = "sqlite"
	// KindBundle is an operator bundle: a bundle image, or a directory
	// holding manifests/ and metadata/ when the caller accepts bundles
	// (Want Bundle).
	KindBundle Kind = "bundle"
	// KindGRPC is a live registry server, grpc://host:port (not dialled).
	KindGRPC Kind = "grpc"
	// KindCatalogd is a catalog served over OLM v1 catalogd's HTTP API:
	// its base URL, http(s)://host[:port]/catalogs/<name> (not fetched).
	KindCatalogd Kind = "catalogd"
	// KindImage is a container image reference not pulled yet: what
	// Classify returns for one. Resolve pulls it and returns what the
	// image holds.
	KindImage Kind = "image"
)

// Want says what a caller accepts, and so how Resolve reads what could be
// either a catalog or a bundle. A grpc:// address is KindGRPC, and an
// http(s):// URL KindCatalogd, whatever is wanted: only parity reads them
// (serve a grpc:// one too), and the other
// callers refuse it in their own words, as any kind they cannot read.
type Want uint8

const (
	// Catalog accepts a catalog: a declarative config directory or file, a
	// sqlite index, or an image of one. A bundle image is a *BundleError;
	// a directory is a catalog, whether or not it holds manifests/ and
	// metadata/.
	Catalog Want = 1 << iota
	// Bundle accepts a bundle: a bundle image, or a directory holding
	// manifests/ and metadata/ (KindBundle). Alone, anything else is a
	// *NotBundleError.
	Bundle
	// Either accepts a catalog or a bundle: bundle images and bundle
	// directories are KindBundle, anything else as for Catalog.
	Either = Catalog | Bundle
)

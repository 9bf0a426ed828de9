package legacy

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strings"

	"github.com/blang/semver/v4"
)

// rawBundle is the per-package part of an operatorbundle row.
type rawBundle struct {
	csv, bundle         []byte
	csvNull, bundleNull bool
	skipRange, replaces sql.NullString
	skips, substitutes  sql.NullString
	// key is read only by a lazy DB; an eager one has it in rows.
	key bundleKey
}

// fetchChunk bounds the number of names bound into one IN (...) query.
const fetchChunk = 500

// needCSV reports whether every bundle's CSV must be read to derive what
// the schema lacks (or to check suspect dependencies).
func (d *DB) needCSV() bool {
	s := d.sch
	for _, c := range []string{"version", "skiprange", "replaces", "skips", "substitutesfor"} {
		if !s.col("operatorbundle", c) {
			return true
		}
	}
	for _, t := range []string{"properties", "dependencies", "related_image", "api_requirer"} {
		if !s.has(t) {
			return true
		}
	}
	return d.depsCorrupt
}

// fetchBundles reads the per-package columns of the named rows with
// primary-key lookups, a chunk of names per query; the manifest columns
// when the DB keeps manifests, the bundle column also when objects is
// set (see ReadPackageWithObjects).
func (d *DB) fetchBundles(ctx context.Context, names []string, objects bool) (map[string]*rawBundle, error) {
	csvSel, bundleSel := "NULL", "NULL"
	if !d.opts.skipManifests || d.needCSV() {
		csvSel = "csv"
	}
	if !d.opts.skipManifests || objects || !d.sch.has("properties") {
		bundleSel = "bundle"
	}
	s := d.sch
	keySel := "NULL, NULL"
	if d.lazy != nil {
		keySel = s.colOr("operatorbundle", "version") + ", " + s.colOr("operatorbundle", "bundlepath")
	}
	out := make(map[string]*rawBundle, len(names))
	for start := 0; start < len(names); start += fetchChunk {
		chunk := names[start:min(start+fetchChunk, len(names))]
		q := fmt.Sprintf(`SELECT name, %s, csv IS NULL, %s, bundle IS NULL, %s, %s, %s, %s, %s FROM operatorbundle WHERE name IN (?%s)`,
			csvSel, bundleSel,
			s.colOr("operatorbundle", "skiprange"), s.colOr("operatorbundle", "replaces"),
			s.colOr("operatorbundle", "skips"), s.colOr("operatorbundle", "substitutesfor"), keySel,
			strings.Repeat(",?", len(chunk)-1))
		args := make([]any, len(chunk))
		for i, n := range chunk {
			args[i] = n
		}
		rows, err := d.query(ctx, q, args...)
		if err != nil {
			return nil, fmt.Errorf("read table operatorbundle: %w", err)
		}
		for rows.Next() {
			var name string
			var csv, bundle blob
			r := &rawBundle{}
			if err := rows.Scan(&name, &csv, &r.csvNull, &bundle, &r.bundleNull, &r.skipRange, &r.replaces, &r.skips, &r.substitutes, &r.key.version, &r.key.bundlePath); err != nil {
				rows.Close()
				return nil, fmt.Errorf("read table operatorbundle: %w", err)
			}
			r.csv, r.bundle = csv.b, bundle.b
			out[name] = r
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("read table operatorbundle: %w", err)
		}
	}
	return out, nil
}

// blob scans a csv/bundle column without a second copy of the bytes. The
// modernc driver returns a freshly allocated []byte for every BLOB value
// (see its conn.columnBlob) and database/sql hands driver values to a
// Scanner unchanged, so the slice can be kept; TEXT values (what opm
// writes) arrive as a string and are converted (one copy: viewing the
// string's bytes without it measured about 2% of parity's CPU, too little
// for an unsafe view of memory the driver owns). Cloning every BLOB would
// copy every manifest once more (the manifests are most of an index).
// TestEveryLevel and TestRealFixtures compare these bytes across bundles,
// which would catch a driver that reused its buffers.
type blob struct{ b []byte }

// Scan implements sql.Scanner.
func (x *blob) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		x.b = nil
	case []byte:
		x.b = v
	case string:
		x.b = []byte(v)
	default:
		return fmt.Errorf("expected BLOB or TEXT, got %T", src)
	}
	return nil
}

// pkgReport collects a package's repairs so that each kind yields at most
// one line per bundle, and package-wide kinds one line per package.
type pkgReport struct {
	pkg      string
	derived  map[string]int // what was derived -> number of bundles
	nullPath []string
	dups     map[string]int // property/dependency type -> duplicate rows
	list     []Repair
}

func (r *pkgReport) derive(what string) {
	if r.derived == nil {
		r.derived = map[string]int{}
	}
	r.derived[what]++
}

func (r *pkgReport) add(kind RepairKind, table, bundle, detail string) {
	r.list = append(r.list, Repair{Kind: kind, Table: table, Package: r.pkg, Bundle: bundle, Detail: detail})
}

// ReadPackage reads everything the database holds for one package.
//
// Entries are in entry_id order, Channels by name, Bundles and Stranded by
// name. What the schema level lacks is derived (see RepairDerived) and all
// known damage is repaired in memory and listed in Repairs; the file is
// never written.
func (db *DB) ReadPackage(ctx context.Context, name string) (*PackageData, error) {
	return db.readPackage(ctx, name, false)
}

// ReadPackageWithObjects is ReadPackage with each bundle's Objects (the
// bundle column split, as BundleManifests returns them) even when the DB
// was opened with SkipManifests (CSV then stays nil), for a caller about
// to serve the package's manifests: the metadata columns of an
// operatorbundle row lie after its manifest columns, so reading the
// metadata walks the row's overflow pages anyway, and reading the bundle
// column in the same pass saves walking them again per bundle.
// Everything else is what ReadPackage returns.
func (db *DB) ReadPackageWithObjects(ctx context.Context, name string) (*PackageData, error) {
	return db.readPackage(ctx, name, true)
}

func (db *DB) readPackage(ctx context.Context, name string, objects bool) (*PackageData, error) {
	pkg, ok := db.pkgs[name]
	if !ok {
		return nil, fmt.Errorf("read %s: package %q: no such package", db.path, name)
	}
	var pr *pkgRows
	var err error
	if db.lazy != nil {
		pr, err = db.lazyRows(ctx, name, objects)
	} else {
		pr, err = db.eagerRows(ctx, name, objects)
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: package %q: %w", db.path, name, err)
	}
	pd := &PackageData{
		Package:  pkg,
		Channels: append([]Channel(nil), db.channels[name]...),
		Entries:  append([]ChannelEntry(nil), pr.entries...),
		TipDepth: pr.tip,
	}
	heads := map[string]bool{}
	for _, c := range pd.Channels {
		heads[c.Head] = true
	}
	edges := entryEdges(pd.Entries, pd.TipDepth)
	rep := &pkgReport{pkg: name}
	build := func(n string) (Bundle, error) {
		raw := pr.raws[n]
		if raw == nil { // vanished between Open and now: impossible for an immutable file
			return Bundle{}, fmt.Errorf("operatorbundle row %q not found", n)
		}
		b, err := db.buildBundle(ctx, pr.t, name, n, raw, heads[n], edges[n], rep)
		if err != nil {
			return Bundle{}, fmt.Errorf("bundle %s: %w", n, err)
		}
		if db.opts.skipManifests {
			b.CSV = nil
			if !pr.objects {
				b.Objects = nil
			}
		}
		return b, nil
	}
	for _, n := range pr.members {
		b, err := build(n)
		if err != nil {
			return nil, fmt.Errorf("read %s: package %q: %w", db.path, name, err)
		}
		pd.Bundles = append(pd.Bundles, b)
	}
	for _, n := range pr.stranded {
		b, err := build(n)
		if err != nil {
			return nil, fmt.Errorf("read %s: package %q: %w", db.path, name, err)
		}
		pd.Stranded = append(pd.Stranded, b)
		rep.add(RepairStranded, "channel_entry", n, fmt.Sprintf(
			"no channel_entry names this bundle (opm dropped it silently); attached to package %s by %s and listed in Stranded", name, db.strandedHow[n]))
	}
	db.repairDefaultChannel(pd, rep)
	pd.Repairs = rep.finish(db)
	return pd, nil
}

// pkgRows is what ReadPackage reads of one package before it builds the
// bundles: its entries, the rows of its bundles and the tables they are
// keyed in.
type pkgRows struct {
	entries           []ChannelEntry
	tip               int64
	t                 *tables
	members, stranded []string // sorted
	raws              map[string]*rawBundle
	// objects: the manifest columns were read for ReadPackageWithObjects.
	objects bool
}

// eagerRows takes a package's rows from the tables read at Open and its
// bundles' operatorbundle columns from the database.
func (db *DB) eagerRows(ctx context.Context, name string, objects bool) (*pkgRows, error) {
	pr := &pkgRows{entries: db.entries[name], tip: db.tip, t: &db.tables, stranded: db.stranded[name], objects: objects}
	seen := map[string]bool{}
	for _, e := range pr.entries {
		if _, exists := db.rows[e.Bundle]; exists && !seen[e.Bundle] {
			seen[e.Bundle] = true
			pr.members = append(pr.members, e.Bundle)
		}
	}
	sort.Strings(pr.members)
	var err error
	pr.raws, err = db.fetchBundles(ctx, append(append([]string(nil), pr.members...), pr.stranded...), objects)
	return pr, err
}

// finish turns the collected package-wide findings into repair lines.
func (r *pkgReport) finish(db *DB) []Repair {
	out := r.list
	if len(r.derived) > 0 {
		var items []string
		for what, n := range r.derived {
			items = append(items, fmt.Sprintf("%s (%d bundle(s))", what, n))
		}
		sort.Strings(items)
		out = append(out, Repair{Kind: RepairDerived, Table: "operatorbundle", Package: r.pkg, Detail: fmt.Sprintf(
			"computed what the database (schema level %d) lacks from the CSV JSON, api tables and channel_entry: %s", db.level, strings.Join(items, "; "))})
	}
	if len(r.nullPath) > 0 {
		out = append(out, Repair{Kind: RepairNullPropertyPath, Table: "properties", Package: r.pkg, Detail: fmt.Sprintf(
			"properties rows of %d bundle(s) with bundlepath '' are keyed by a NULL operatorbundle_path (%s); used, joined by bundle name as opm does",
			len(r.nullPath), strings.Join(r.nullPath, ", "))})
	}
	if len(r.dups) > 0 {
		var items []string
		for t, n := range r.dups {
			items = append(items, fmt.Sprintf("%s x%d", t, n))
		}
		sort.Strings(items)
		out = append(out, Repair{Kind: RepairDuplicateRows, Table: "properties", Package: r.pkg, Detail: fmt.Sprintf(
			"identical properties/dependencies rows collapsed: %s", strings.Join(items, ", "))})
	}
	return out
}

// repairDefaultChannel fixes a default_channel that names no channel of the
// package: the only channel, else the channel whose head has the highest
// semver (ties: the smallest channel name).
func (db *DB) repairDefaultChannel(pd *PackageData, rep *pkgReport) {
	def := pd.Package.DefaultChannel
	for _, c := range pd.Channels {
		if c.Name == def {
			return
		}
	}
	was := fmt.Sprintf("%q", def)
	if def == "" {
		was = "empty/NULL"
	}
	switch len(pd.Channels) {
	case 0:
		rep.add(RepairMissingDefaultChannel, "package", "", fmt.Sprintf(
			"default_channel %s and the package has no channel rows; left as stored", was))
		return
	case 1:
		pd.Package.DefaultChannel = pd.Channels[0].Name
		rep.add(RepairMissingDefaultChannel, "package", "", fmt.Sprintf(
			"default_channel %s names no channel of the package; using its only channel %q", was, pd.Channels[0].Name))
		return
	}
	versions := map[string]string{}
	for _, b := range pd.Bundles {
		versions[b.Name] = b.Version
	}
	best, bestV := "", semver.Version{}
	haveBest := false
	for _, c := range pd.Channels {
		v, err := semver.ParseTolerant(versions[c.Head])
		if err != nil {
			continue
		}
		if !haveBest || v.GT(bestV) || (v.EQ(bestV) && c.Name < best) {
			best, bestV, haveBest = c.Name, v, true
		}
	}
	if !haveBest {
		best = pd.Channels[0].Name
		pd.Package.DefaultChannel = best
		rep.add(RepairMissingDefaultChannel, "package", "", fmt.Sprintf(
			"default_channel %s names no channel of the package and no channel head has a semver version; using the first channel by name %q", was, best))
		return
	}
	pd.Package.DefaultChannel = best
	rep.add(RepairMissingDefaultChannel, "package", "", fmt.Sprintf(
		"default_channel %s names no channel of the package; using %q, the channel whose head has the highest version (%s)", was, best, bestV))
}

// bundleEdges is a bundle's replaces/skips as channel_entry records them.
type bundleEdges struct {
	replaces string
	skips    []string
}

// entryEdges reads the replaces/skips of each bundle from channel_entry:
// entries reachable from the entries at depth tip through replaces form
// the real chain (their replaced entry is the bundle's replaces, the
// greatest name across channels, as opm's query); every other replaces
// link is a synthetic skip entry.
func entryEdges(entries []ChannelEntry, tip int64) map[string]*bundleEdges {
	byID := make(map[int64]ChannelEntry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	real := map[int64]bool{}
	var queue []int64
	for _, e := range entries {
		if e.Depth == tip {
			queue = append(queue, e.ID)
		}
	}
	for len(queue) > 0 {
		id := queue[0]
		queue = queue[1:]
		e, ok := byID[id]
		if !ok || real[id] {
			continue
		}
		real[id] = true
		if e.Replaces != 0 {
			queue = append(queue, e.Replaces)
		}
	}
	out := map[string]*bundleEdges{}
	for _, e := range entries {
		if e.Replaces == 0 {
			continue
		}
		target, ok := byID[e.Replaces]
		if !ok {
			continue
		}
		be := out[e.Bundle]
		if be == nil {
			be = &bundleEdges{}
			out[e.Bundle] = be
		}
		if real[e.ID] {
			if target.Bundle > be.replaces {
				be.replaces = target.Bundle
			}
		} else {
			be.skips = append(be.skips, target.Bundle)
		}
	}
	for _, be := range out {
		be.skips = dedupStrings(be.skips)
	}
	return out
}

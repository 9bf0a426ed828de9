package legacy

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// Lazy makes Open read only the schema and the package and channel tables,
// so that it returns at once whatever the size of the index, and makes
// ReadPackage read one package's rows when it is asked for them. On its
// first call ReadPackage scans the row ids and names of channel_entry's
// rows and of the bundle-keyed tables' rows that start a run of one
// bundle's rows, once (never their values, never operatorbundle), into a
// small index of where each package's and bundle's rows lie; each package
// is then read by rowid ranges.
//
// A lazy DB does not run the catalog-wide checks: Repairs lists only what
// Open found (package rows without a name), and ReadPackage attributes no
// stranded bundles (PackageData.Stranded is empty). Everything else
// ReadPackage returns is what an eager DB returns for the package. Callers
// that need the catalog-wide repairs open the file again without Lazy.
//
// Databases whose damage can only be repaired with the whole catalog in
// view are opened eagerly even with Lazy: api tables keyed by
// channel_entry_id (below level 6) and dependencies that may carry
// migration 9's corruption (every row one value). IsLazy tells.
func Lazy() Option { return func(o *openOptions) { o.lazy = true } }

// IsLazy reports whether the DB reads packages lazily (see Lazy).
func (db *DB) IsLazy() bool { return db.lazy != nil }

// lazyTables are the bundle-keyed tables a lazy DB reads by rowid ranges.
var lazyTables = [...]string{"properties", "dependencies", "related_image", "api_provider", "api_requirer"}

// lazyIndex locates rows for a lazy DB; built once, by build, on the
// first ReadPackage, read-only after.
type lazyIndex struct {
	once sync.Once
	err  error
	tip  int64
	// entries are channel_entry rowid runs by package name (ids of
	// pkgKeys); keyed the runs of each of lazyTables by bundle name (ids
	// of keys).
	keys, pkgKeys keyIDs
	facts         *bundleFacts // while Open runs the catalog checks
	entries       rowRuns
	entryCount    map[string]int // channel_entry rows by package
	keyed         [len(lazyTables)]rowRuns
	plural        *plurals
	deprecated    map[string]bool
}

// lazyEligible reports whether the database can be read lazily: its api
// tables are keyed by bundle name and its dependencies do not show the
// signature of migration 9's corruption (at least two rows, one value).
func (d *DB) lazyEligible(ctx context.Context) (bool, error) {
	if d.apiKeyedByEntry() {
		return false, nil
	}
	if !d.sch.has("dependencies") {
		return true, nil
	}
	const named = `FROM dependencies WHERE operatorbundle_name IS NOT NULL`
	var rows, other int
	err := d.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 `+named+` LIMIT 2)`).Scan(&rows)
	if err == nil && rows == 2 {
		err = d.db.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 `+named+
			` AND ifnull(CAST(value AS TEXT), '') <> (SELECT ifnull(CAST(value AS TEXT), '') `+named+` ORDER BY rowid LIMIT 1) LIMIT 1)`).Scan(&other)
	}
	if err != nil {
		return false, fmt.Errorf("read table dependencies: %w", err)
	}
	return rows < 2 || other > 0, nil
}

// index builds the lazy index once; every lazy read calls it first.
func (d *DB) index(ctx context.Context) (*lazyIndex, error) {
	x := d.lazy
	x.once.Do(func() { x.err = d.buildIndex(ctx, x) })
	return x, x.err
}

// buildIndex scans channel_entry and the bundle-keyed tables' rowids and
// keys (concurrently, on separate connections), the api table and the
// deprecated table. With the catalog checks to run (d.rows read), the
// scans also note which package's entries first name each bundle, how
// many entries each package has, and whether any keyed row is keyed off
// its bundle (keyCheck).
func (d *DB) buildIndex(ctx context.Context, x *lazyIndex) error {
	checks := x.facts != nil
	// The keyed tables' keys are about the bundles, the entries' the
	// packages.
	x.keys.reserve(d.sizeHint)
	x.pkgKeys.reserve(len(d.pkgs))
	x.entries.first = make([]run32, 0, len(d.pkgs))
	for i := range x.keyed {
		x.keyed[i].first = make([]run32, 0, d.sizeHint)
	}
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(indexScans)
	g.Go(func() error { return d.indexEntries(gctx, x, checks) })
	for i, table := range lazyTables {
		if !d.sch.has(table) || !d.sch.col(table, "operatorbundle_name") {
			continue
		}
		g.Go(func() error { return d.indexKeyed(gctx, x, i, checks) })
	}
	g.Go(func() error {
		var err error
		if x.plural, err = d.apiPlurals(gctx); err == nil {
			x.deprecated, err = d.readDeprecated(gctx)
		}
		return err
	})
	if err := g.Wait(); err != nil {
		return err
	}
	x.keys.trim()
	x.pkgKeys.trim()
	x.entries.done()
	for i := range x.keyed {
		x.keyed[i].done()
	}
	return nil
}

// indexScans is how many index scans run at once. The scans are
// independent and each holds only its own table's row runs, so two at a
// time keep both cores of a small machine busy during Open at the cost of
// one more table's runs in memory; more add memory without adding cores.
const indexScans = 2

// indexEntries scans channel_entry's rowids by package (NULL reads as "",
// as the eager loader groups it) and its minimum depth; with the checks to
// run, also the bundle each entry names.
func (d *DB) indexEntries(ctx context.Context, x *lazyIndex, checks bool) error {
	x.entryCount = map[string]int{}
	bundleCol := "NULL"
	if checks {
		bundleCol = "operatorbundle_name"
	}
	rows, err := d.db.QueryContext(ctx, `SELECT rowid, ifnull(package_name, ''), depth, `+bundleCol+` FROM channel_entry ORDER BY rowid`)
	if err != nil {
		return fmt.Errorf("index table channel_entry: %w", err)
	}
	defer rows.Close()
	var prev string
	var id int32
	// Scanned into through interfaces: declared once, not per row.
	var rowid int64
	var pkg, bundle sql.NullString
	var depth sql.NullInt64
	for first := true; rows.Next(); first = false {
		if err := rows.Scan(&rowid, &pkg, &depth, &bundle); err != nil {
			return fmt.Errorf("index table channel_entry: %w", err)
		}
		same := !first && pkg.String == prev
		if !same {
			prev, id = pkg.String, x.pkgKeys.id(pkg.String)
		}
		x.entries.add(id, rowid, same)
		x.entryCount[prev]++
		if first || depth.Int64 < x.tip {
			x.tip = depth.Int64
		}
		if checks && bundle.String != "" {
			if b, ok := x.keys.lookup(bundle.String); ok && b < x.facts.n && x.facts.entryPkg[b] < 0 {
				x.facts.entryPkg[b] = id
			}
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index table channel_entry: %w", err)
	}
	return nil
}

// indexKeyed indexes the rowids of lazyTables[i] by bundle name: NULL
// names are skipped, and in the api tables (keyed by the name cast to
// text, as their loader does) empty ones too. Rather than every row, the
// query returns the rows that start a segment: those whose name (and,
// with the checks to run, version or bundlepath) differ from the row just
// before in rowid (or that have no such row). Every row of a segment then
// has its first row's name and key, so a segment is one run up to the row
// before the next segment's, and checking the first row's key against its
// bundle's (keyCheck's comparison, on the columns' text) checks them all.
func (d *DB) indexKeyed(ctx context.Context, x *lazyIndex, i int, checks bool) error {
	table := lazyTables[i]
	var keys *keyCheck
	if k := slices.Index(keyedTables[:], table); checks && k >= 0 && d.keyed(table) {
		keys = &d.keys[k]
	}
	var last int64
	if err := d.db.QueryRowContext(ctx, `SELECT ifnull(max(rowid), 0) FROM `+table).Scan(&last); err != nil {
		return fmt.Errorf("index table %s: %w", table, err)
	}
	rows, err := d.db.QueryContext(ctx, segmentQuery(table, keys != nil))
	if err != nil {
		return fmt.Errorf("index table %s: %w", table, err)
	}
	defer rows.Close()
	keepEmpty := table != "api_provider" && table != "api_requirer"
	runs := &x.keyed[i]
	var seg struct {
		lo          int64
		id          int32
		named, same bool
	}
	var prev string
	var rowid int64
	var name, version, path sql.NullString
	for rows.Next() {
		if err := rows.Scan(&rowid, &name, &version, &path); err != nil {
			return fmt.Errorf("index table %s: %w", table, err)
		}
		if seg.named {
			runs.span(seg.id, seg.lo, rowid-1, seg.same)
		}
		named := name.Valid && (name.String != "" || keepEmpty)
		same := named && seg.named && name.String == prev
		seg.lo, seg.named, seg.same = rowid, named, same
		if !named {
			continue
		}
		if !same {
			prev, seg.id = name.String, x.keys.id(name.String)
		}
		if keys != nil && !keys.off && path.Valid && seg.id < x.facts.n && x.facts.keyHash[seg.id] != x.facts.hashKey(version, path) {
			keys.off = true
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("index table %s: %w", table, err)
	}
	if seg.named {
		runs.span(seg.id, seg.lo, last, seg.same)
	}
	if keys != nil {
		keys.complete = true
	}
	return nil
}

// segmentQuery selects the rowid, name, version and bundlepath of the rows
// of table that start a segment (see indexKeyed), in rowid order; with
// keyed, a change of version or bundlepath starts one too. Values are
// compared as sqlite compares them, text by its bytes (BINARY) and never
// equal to a blob, so a segment never joins rows whose names or keys
// read differently.
func segmentQuery(table string, keyed bool) string {
	name := func(t string) string { return t + ".operatorbundle_name" }
	if table == "api_provider" || table == "api_requirer" {
		name = func(t string) string { return "CAST(" + t + ".operatorbundle_name AS TEXT)" }
	}
	cols, differ := name("a")+", NULL, NULL", name("a")+" IS NOT "+name("b")+" COLLATE BINARY"
	if keyed {
		cols = name("a") + ", a.operatorbundle_version, a.operatorbundle_path"
		for _, c := range []string{"operatorbundle_version", "operatorbundle_path"} {
			differ += " OR a." + c + " IS NOT b." + c + " COLLATE BINARY"
		}
	}
	return `SELECT a.rowid, ` + cols + ` FROM ` + table + ` a LEFT JOIN ` + table +
		` b ON b.rowid = a.rowid - 1 WHERE ` + differ + ` ORDER BY a.rowid`
}

// eachRange calls read once per range of r (keyed by ids of ks) holding
// rows of keys, with a rowSel for that range keeping only those keys'
// rows.
func eachRange(ks *keyIDs, r *rowRuns, keys []string, read func(rowSel) error) error {
	want := make(map[string]bool, len(keys))
	ids := make([]int32, 0, len(keys))
	for _, k := range keys {
		want[k] = true
		if id, ok := ks.lookup(k); ok {
			ids = append(ids, id)
		}
	}
	for _, run := range r.ranges(ids) {
		if err := read(rowSel{where: ` WHERE rowid BETWEEN ? AND ?`, args: []any{run.lo, run.hi}, want: want}); err != nil {
			return err
		}
	}
	return nil
}

// lazyRows reads one package's entries and rows by rowid ranges, with
// its stranded bundles' when the catalog checks ran.
func (d *DB) lazyRows(ctx context.Context, name string, objects bool) (*pkgRows, error) {
	x, err := d.index(ctx)
	if err != nil {
		return nil, err
	}
	pr := &pkgRows{tip: x.tip, stranded: d.stranded[name], objects: objects}
	err = eachRange(&x.pkgKeys, &x.entries, []string{name}, func(sel rowSel) error {
		return d.readEntries(ctx, sel, func(e ChannelEntry) { pr.entries = append(pr.entries, e) })
	})
	if err != nil {
		return nil, err
	}
	var named []string
	seen := map[string]bool{}
	for _, e := range pr.entries {
		if e.Bundle != "" && !seen[e.Bundle] {
			seen[e.Bundle] = true
			named = append(named, e.Bundle)
		}
	}
	if pr.raws, err = d.fetchBundles(ctx, append(named, pr.stranded...), objects); err != nil {
		return nil, err
	}
	t := newTables(x)
	for _, n := range named {
		if raw := pr.raws[n]; raw != nil {
			pr.members = append(pr.members, n)
		}
	}
	sort.Strings(pr.members)
	for n, raw := range pr.raws {
		t.rows[n] = raw.key
	}
	if err := d.readKeyed(ctx, x, t, append(append([]string(nil), pr.members...), pr.stranded...)); err != nil {
		return nil, err
	}
	pr.t = t
	return pr, nil
}

// readKeyed reads the bundle-keyed tables' rows of the named bundles into t.
func (d *DB) readKeyed(ctx context.Context, x *lazyIndex, t *tables, names []string) error {
	none := &keyCheck{}
	readers := [len(lazyTables)]func(rowSel) error{
		func(sel rowSel) error { return d.readProperties(ctx, t, none, sel) },
		func(sel rowSel) error { return d.readDependencies(ctx, t, none, sel) },
		func(sel rowSel) error { return d.readRelatedImages(ctx, t, sel) },
		func(sel rowSel) error { return d.readAPIs(ctx, "api_provider", t.provided, x.plural, none, sel) },
		func(sel rowSel) error { return d.readAPIs(ctx, "api_requirer", t.required, x.plural, none, sel) },
	}
	for i, read := range readers {
		if err := eachRange(&x.keys, &x.keyed[i], names, read); err != nil {
			return err
		}
	}
	for k, v := range t.related {
		t.related[k] = dedupStrings(v)
	}
	for _, m := range []map[string][]API{t.provided, t.required} {
		for k, v := range m {
			m[k] = manifest.DedupAPIs(v)
		}
	}
	return nil
}

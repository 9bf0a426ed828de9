package legacy

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// The loaders below read one table each into the maps of d, once at Open:
// the bundle-keyed tables have no index on the bundle name, so per-package
// queries would scan them once per package.

// loadPackages reads the package table.
func (d *DB) loadPackages(ctx context.Context) error {
	rows, err := d.db.QueryContext(ctx, `SELECT name, default_channel FROM package`)
	if err != nil {
		return fmt.Errorf("read table package: %w", err)
	}
	defer rows.Close()
	d.pkgs = make(map[string]Package, d.sizeHint/8)
	nullNames := 0
	for rows.Next() {
		var name, def sql.NullString
		if err := rows.Scan(&name, &def); err != nil {
			return fmt.Errorf("read table package: %w", err)
		}
		if !name.Valid || name.String == "" {
			nullNames++
			continue
		}
		d.pkgs[name.String] = Package{Name: name.String, DefaultChannel: def.String}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table package: %w", err)
	}
	for n := range d.pkgs {
		d.names = append(d.names, n)
	}
	sort.Strings(d.names)
	if nullNames > 0 {
		d.pkgRepairs = append(d.pkgRepairs, Repair{Kind: RepairNullNameRows, Table: "package",
			Detail: fmt.Sprintf("%d package row(s) with a NULL or empty name ignored", nullNames)})
	}

	d.channels = map[string][]Channel{}
	crows, err := d.db.QueryContext(ctx, `SELECT name, package_name, head_operatorbundle_name FROM channel ORDER BY package_name, name`)
	if err != nil {
		return fmt.Errorf("read table channel: %w", err)
	}
	defer crows.Close()
	for crows.Next() {
		var name, pkg, head sql.NullString
		if err := crows.Scan(&name, &pkg, &head); err != nil {
			return fmt.Errorf("read table channel: %w", err)
		}
		d.channels[pkg.String] = append(d.channels[pkg.String], Channel{Name: name.String, Package: pkg.String, Head: head.String})
	}
	if err := crows.Err(); err != nil {
		return fmt.Errorf("read table channel: %w", err)
	}
	return nil
}

// loadEntries reads channel_entry.
func (d *DB) loadEntries(ctx context.Context) error {
	d.entries = map[string][]ChannelEntry{}
	d.entryPkg = make(map[string]string, d.sizeHint)
	rowsRead := 0
	return d.readEntries(ctx, rowSel{}, func(e ChannelEntry) {
		if rowsRead == 0 || e.Depth < d.tip {
			d.tip = e.Depth
		}
		rowsRead++
		d.entries[e.Package] = append(d.entries[e.Package], e)
		if _, ok := d.entryPkg[e.Bundle]; !ok && e.Bundle != "" {
			d.entryPkg[e.Bundle] = e.Package
		}
	})
}

// readEntries calls fn with the selected channel_entry rows of the wanted
// packages (sel.want holds package names), in entry_id order.
func (d *DB) readEntries(ctx context.Context, sel rowSel, fn func(ChannelEntry)) error {
	rows, err := d.query(ctx, `SELECT entry_id, channel_name, package_name, operatorbundle_name, replaces, depth FROM channel_entry`+sel.where+` ORDER BY entry_id`, sel.args...)
	if err != nil {
		return fmt.Errorf("read table channel_entry: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var ch, pkg, b sql.NullString
		var repl, depth sql.NullInt64
		if err := rows.Scan(&id, &ch, &pkg, &b, &repl, &depth); err != nil {
			return fmt.Errorf("read table channel_entry: %w", err)
		}
		if !sel.keep(pkg.String) {
			continue
		}
		fn(ChannelEntry{
			ID: id, Channel: ch.String, Package: pkg.String, Bundle: b.String,
			Replaces: repl.Int64, Depth: depth.Int64,
		})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table channel_entry: %w", err)
	}
	return nil
}

// loadBundleKeys reads the indexed columns of operatorbundle.
func (d *DB) loadBundleKeys(ctx context.Context) error {
	if err := d.countJunkRows(ctx); err != nil {
		return err
	}
	// name, version and bundlepath are all in the "pk" index (level >= 6),
	// so this never touches the csv/bundle overflow pages.
	q := fmt.Sprintf(`SELECT name, %s, %s FROM operatorbundle WHERE name IS NOT NULL`,
		d.sch.colOr("operatorbundle", "version"), d.sch.colOr("operatorbundle", "bundlepath"))
	return d.readBundleKeys(ctx, q)
}

// countJunkRows reports migration 5's junk rows (NULL name).
func (d *DB) countJunkRows(ctx context.Context) error {
	var junk int
	if err := d.db.GetContext(ctx, &junk, `SELECT count(*) FROM operatorbundle WHERE name IS NULL`); err != nil {
		return fmt.Errorf("read table operatorbundle: %w", err)
	}
	if junk > 0 {
		d.junkRepairs = append(d.junkRepairs, Repair{Kind: RepairNullNameRows, Table: "operatorbundle",
			Detail: fmt.Sprintf("%d operatorbundle row(s) with NULL name ignored (junk rows inserted by the buggy migration 5 backfill)", junk)})
	}
	return nil
}

// readBundleKeys reads the operatorbundle keys query q selects into d.rows.
func (d *DB) readBundleKeys(ctx context.Context, q string) error {
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("read table operatorbundle: %w", err)
	}
	defer rows.Close()
	d.rows = make(map[string]bundleKey, d.sizeHint)
	for rows.Next() {
		var name string
		var k bundleKey
		if err := rows.Scan(&name, &k.version, &k.bundlePath); err != nil {
			return fmt.Errorf("read table operatorbundle: %w", err)
		}
		d.rows[name] = k
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table operatorbundle: %w", err)
	}
	return nil
}

// loadProperties reads the properties table.
func (d *DB) loadProperties(ctx context.Context) error {
	d.props = make(map[string][]propRow, d.sizeHint)
	keys := &d.keys[slices.Index(keyedTables[:], "properties")]
	if err := d.readProperties(ctx, &d.tables, keys, rowSel{}); err != nil {
		return err
	}
	keys.complete = true
	return nil
}

// rowSel narrows what a table reader reads: a WHERE clause (on rowid)
// with its arguments, and the bundle names whose rows are kept. The zero
// value reads the whole table.
type rowSel struct {
	where string
	args  []any
	want  map[string]bool
}

// keep reports whether rows of bundle name are wanted.
func (s rowSel) keep(name string) bool { return s.want == nil || s.want[name] }

// keepBytes is keep for a name as bytes.
func (s rowSel) keepBytes(name []byte) bool { return s.want == nil || s.want[string(name)] }

// readProperties adds the selected properties rows to t.props.
func (d *DB) readProperties(ctx context.Context, t *tables, keys *keyCheck, sel rowSel) error {
	if !d.sch.has("properties") {
		return nil
	}
	q := fmt.Sprintf(`SELECT CAST(type AS TEXT), CAST(value AS TEXT), operatorbundle_name, operatorbundle_name IS NULL, %s IS NULL%s FROM properties%s`,
		colOrNull(d.sch, "properties", "operatorbundle_path"), d.keyColumns("properties", keys), sel.where)
	rows, err := d.query(ctx, q, sel.args...)
	if err != nil {
		return fmt.Errorf("read table properties: %w", err)
	}
	defer rows.Close()
	g := grouper[propRow]{m: t.props}
	defer g.flush()
	var typ, val, name sql.RawBytes
	var nameNull, nullPath bool
	var kv keyValues
	dest := kv.dest(keys, &typ, &val, &name, &nameNull, &nullPath)
	types := texts{}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("read table properties: %w", err)
		}
		kv.check(keys, name, nameNull)
		if nameNull || !sel.keepBytes(name) {
			continue
		}
		g.addBytes(name, propRow{Property{Type: types.of(typ), Value: string(val)}, nullPath})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table properties: %w", err)
	}
	return nil
}

// keyValues are the key columns a reader scans when it checks keys.
type keyValues struct{ version, path sql.NullString }

// dest is cols plus the key columns when keys are checked.
func (kv *keyValues) dest(keys *keyCheck, cols ...any) []any {
	if keys.match != nil {
		cols = append(cols, &kv.version, &kv.path)
	}
	return cols
}

// check checks the row's key when keys are checked.
func (kv *keyValues) check(keys *keyCheck, name []byte, nameNull bool) {
	if keys.match != nil {
		keys.add(sql.NullString{String: string(name), Valid: !nameNull}, kv.version, kv.path)
	}
}

// texts interns the short strings a table repeats (types, groups, kinds).
type texts map[string]string

func (t texts) of(b []byte) string {
	if s, ok := t[string(b)]; ok {
		return s
	}
	s := string(b)
	t[s] = s
	return s
}

// grouper appends rows to m[key] with one map access per run of equal
// keys: the bundle-keyed tables hold each bundle's rows together, so the
// map is hashed once per bundle rather than once per row.
type grouper[T any] struct {
	m    map[string][]T
	key  string
	cur  []T
	open bool
}

// addBytes is add with the key as bytes, converted once per run.
func (g *grouper[T]) addBytes(key []byte, v T) {
	if !g.open || string(key) != g.key {
		g.add(string(key), v)
		return
	}
	g.cur = append(g.cur, v)
}

func (g *grouper[T]) add(key string, v T) {
	if !g.open || key != g.key {
		g.flush()
		g.key, g.cur, g.open = key, g.m[key], true
	}
	g.cur = append(g.cur, v)
}

// flush stores the current run; add and flush may be called after it.
func (g *grouper[T]) flush() {
	if g.open {
		g.m[g.key] = g.cur
		g.open = false
	}
}

// colOrNull is column c of table t or the literal NULL.
func colOrNull(s schemaInfo, t, c string) string {
	if s.col(t, c) {
		return c
	}
	return "NULL"
}

// loadDependencies reads the dependencies table.
func (d *DB) loadDependencies(ctx context.Context) error {
	d.deps = make(map[string][]Dependency, d.sizeHint)
	keys := &d.keys[slices.Index(keyedTables[:], "dependencies")]
	if err := d.readDependencies(ctx, &d.tables, keys, rowSel{}); err != nil {
		return err
	}
	keys.complete = true
	return nil
}

// readDependencies adds the selected dependencies rows to t.deps. Reading
// the whole table also notes its first row (depsFirst).
func (d *DB) readDependencies(ctx context.Context, t *tables, keys *keyCheck, sel rowSel) error {
	if !d.sch.has("dependencies") {
		return nil
	}
	rows, err := d.query(ctx, `SELECT CAST(type AS TEXT), CAST(value AS TEXT), operatorbundle_name, operatorbundle_name IS NULL`+d.keyColumns("dependencies", keys)+` FROM dependencies`+sel.where+` ORDER BY rowid`, sel.args...)
	if err != nil {
		return fmt.Errorf("read table dependencies: %w", err)
	}
	defer rows.Close()
	g := grouper[Dependency]{m: t.deps}
	defer g.flush()
	var typ, val, name sql.RawBytes
	var nameNull bool
	var kv keyValues
	dest := kv.dest(keys, &typ, &val, &name, &nameNull)
	types := texts{}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("read table dependencies: %w", err)
		}
		kv.check(keys, name, nameNull)
		if nameNull || !sel.keepBytes(name) {
			continue
		}
		dep := Dependency{Type: types.of(typ), Value: string(val)}
		if sel.want == nil && d.depsFirstBundle == "" {
			// Migration 9 copied the first row's value into every row: that
			// row alone is known to be genuine.
			d.depsFirst, d.depsFirstBundle = dep, string(name)
		}
		g.addBytes(name, dep)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table dependencies: %w", err)
	}
	return nil
}

// loadRelatedImages reads the related_image table.
func (d *DB) loadRelatedImages(ctx context.Context) error {
	d.related = make(map[string][]string, d.sizeHint)
	if err := d.readRelatedImages(ctx, &d.tables, rowSel{}); err != nil {
		return err
	}
	for k, v := range d.related {
		d.related[k] = dedupStrings(v)
	}
	return nil
}

// readRelatedImages adds the selected related_image rows to t.related,
// not yet deduplicated.
func (d *DB) readRelatedImages(ctx context.Context, t *tables, sel rowSel) error {
	if !d.sch.has("related_image") {
		return nil
	}
	rows, err := d.query(ctx, `SELECT CAST(image AS TEXT), operatorbundle_name, operatorbundle_name IS NULL FROM related_image`+sel.where, sel.args...)
	if err != nil {
		return fmt.Errorf("read table related_image: %w", err)
	}
	g := grouper[string]{m: t.related}
	defer rows.Close()
	var img, name sql.RawBytes
	var nameNull bool
	for rows.Next() {
		if err := rows.Scan(&img, &name, &nameNull); err != nil {
			return fmt.Errorf("read table related_image: %w", err)
		}
		if nameNull || len(img) == 0 || !sel.keepBytes(name) {
			continue
		}
		g.addBytes(name, string(img))
	}
	g.flush()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table related_image: %w", err)
	}
	return nil
}

// loadAPIs reads api_provider and api_requirer as stored, with plurals
// from the api table; mapAPIs keys them by bundle name.
func (d *DB) loadAPIs(ctx context.Context) error {
	plural, err := d.apiPlurals(ctx)
	if err != nil {
		return err
	}
	read := func(table string) (map[string][]API, error) {
		out := make(map[string][]API, d.sizeHint)
		keys := &keyCheck{}
		if i := slices.Index(keyedTables[:], table); i >= 0 {
			keys = &d.keys[i]
		}
		if err := d.readAPIs(ctx, table, out, plural, keys, rowSel{}); err != nil {
			return nil, err
		}
		keys.complete = true
		return out, nil
	}
	if d.rawProvided, err = read("api_provider"); err != nil {
		return err
	}
	if d.rawRequired, err = read("api_requirer"); err != nil {
		return err
	}
	return nil
}

// apiPlurals reads the api table's plurals by group, version and kind.
func (d *DB) apiPlurals(ctx context.Context) (map[[3]string]string, error) {
	plural := map[[3]string]string{}
	if !d.sch.has("api") {
		return plural, nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT group_name, version, kind, plural FROM api`)
	if err != nil {
		return nil, fmt.Errorf("read table api: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var g, v, k, p sql.NullString
		if err := rows.Scan(&g, &v, &k, &p); err != nil {
			return nil, fmt.Errorf("read table api: %w", err)
		}
		plural[[3]string{g.String, v.String, k.String}] = p.String
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read table api: %w", err)
	}
	return plural, nil
}

// readAPIs adds the selected rows of an api table to out, keyed as stored
// (bundle name, or channel_entry_id below level 6), with plurals.
func (d *DB) readAPIs(ctx context.Context, table string, out map[string][]API, plural map[[3]string]string, keys *keyCheck, sel rowSel) error {
	key := d.apiKey(table)
	if key == "" {
		return nil
	}
	// The key check needs the raw name (ref is cast to text).
	cols := ""
	if kc := d.keyColumns(table, keys); kc != "" {
		cols = ", operatorbundle_name IS NULL" + kc
	}
	rows, err := d.query(ctx, fmt.Sprintf(`SELECT group_name, version, kind, CAST(%s AS TEXT)%s FROM %s%s`, key, cols, table, sel.where), sel.args...)
	if err != nil {
		return fmt.Errorf("read table %s: %w", table, err)
	}
	defer rows.Close()
	// Group/version/kind repeat across bundles: share their strings.
	intern := map[[3]string]API{}
	strs := texts{}
	grp := grouper[API]{m: out}
	var g, v, k, ref sql.RawBytes
	var nameNull bool
	var kv keyValues
	dest := []any{&g, &v, &k, &ref}
	if cols != "" {
		dest = kv.dest(keys, append(dest, &nameNull)...)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("read table %s: %w", table, err)
		}
		if cols != "" {
			// The key name is the raw column; ref is its text.
			kv.check(keys, ref, nameNull)
		}
		if len(ref) == 0 || !sel.keepBytes(ref) {
			continue
		}
		gvk := [3]string{strs.of(g), strs.of(v), strs.of(k)}
		a, ok := intern[gvk]
		if !ok {
			a = API{GVK: manifest.GVK{Group: gvk[0], Version: gvk[1], Kind: gvk[2]}, Plural: plural[gvk]}
			intern[gvk] = a
		}
		grp.addBytes(ref, a)
	}
	grp.flush()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table %s: %w", table, err)
	}
	return nil
}

// apiKey is the column an api table keys bundles by: operatorbundle_name
// from level 6, channel_entry_id before; "" when the table is absent.
func (d *DB) apiKey(table string) string {
	switch {
	case !d.sch.has(table):
		return ""
	case d.sch.col(table, "operatorbundle_name"):
		return "operatorbundle_name"
	case d.sch.col(table, "channel_entry_id"):
		return "channel_entry_id"
	}
	return ""
}

// mapAPIs keys the api rows by bundle name, mapping channel_entry ids to
// the entries' bundles below level 6, and deduplicates them.
func (d *DB) mapAPIs() {
	var entryBundle map[string]string
	if d.apiKeyedByEntry() {
		entryBundle = map[string]string{}
		for _, es := range d.entries {
			for _, e := range es {
				entryBundle[strconv.FormatInt(e.ID, 10)] = e.Bundle
			}
		}
	}
	conv := func(raw map[string][]API) map[string][]API {
		if entryBundle == nil {
			for n, as := range raw {
				raw[n] = manifest.DedupAPIs(as)
			}
			return raw
		}
		// Walk ids in entry order so that APIs keep a stable order.
		ids := make([]string, 0, len(raw))
		for id := range raw {
			ids = append(ids, id)
		}
		sort.Slice(ids, func(i, j int) bool {
			a, _ := strconv.ParseInt(ids[i], 10, 64)
			b, _ := strconv.ParseInt(ids[j], 10, 64)
			return a < b
		})
		out := map[string][]API{}
		for _, id := range ids {
			if n := entryBundle[id]; n != "" {
				out[n] = append(out[n], raw[id]...)
			}
		}
		for n, as := range out {
			out[n] = manifest.DedupAPIs(as)
		}
		return out
	}
	d.provided = conv(d.rawProvided)
	d.required = conv(d.rawRequired)
	d.rawProvided, d.rawRequired = nil, nil
}

// loadDeprecated reads the deprecated table.
func (d *DB) loadDeprecated(ctx context.Context) error {
	var err error
	d.deprecated, err = d.readDeprecated(ctx)
	return err
}

// readDeprecated reads the deprecated table's bundle names.
func (d *DB) readDeprecated(ctx context.Context) (map[string]bool, error) {
	out := map[string]bool{}
	if !d.sch.has("deprecated") {
		return out, nil
	}
	var names []sql.NullString
	if err := d.db.SelectContext(ctx, &names, `SELECT operatorbundle_name FROM deprecated`); err != nil {
		return nil, fmt.Errorf("read table deprecated: %w", err)
	}
	for _, n := range names {
		if n.Valid {
			out[n.String] = true
		}
	}
	return out, nil
}

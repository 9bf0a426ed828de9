package legacy

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
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
	// Scanned into through interfaces: declared once, not per row.
	var id int64
	var ch, pkg, b sql.NullString
	var repl, depth sql.NullInt64
	for rows.Next() {
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

// readProperties adds the selected properties rows to t.props.
func (d *DB) readProperties(ctx context.Context, t *tables, keys *keyCheck, sel rowSel) error {
	if !d.sch.has("properties") {
		return nil
	}
	q := fmt.Sprintf(`SELECT CAST(type AS TEXT), CAST(value AS TEXT), operatorbundle_name, %s IS NULL%s FROM properties%s`,
		colOrNull(d.sch, "properties", "operatorbundle_path"), d.keyColumns("properties", keys), sel.where)
	rows, err := d.query(ctx, q, sel.args...)
	if err != nil {
		return fmt.Errorf("read table properties: %w", err)
	}
	defer rows.Close()
	g := grouper[propRow]{m: t.props}
	defer g.flush()
	var typ, val, name sql.NullString
	var nullPath bool
	var kv keyValues
	dest := kv.dest(keys, &typ, &val, &name, &nullPath)
	types := texts{}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("read table properties: %w", err)
		}
		kv.check(keys, name)
		if !name.Valid || !sel.keep(name.String) {
			continue
		}
		g.add(name.String, propRow{Property{Type: types.str(typ.String), Value: val.String}, nullPath})
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table properties: %w", err)
	}
	return nil
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
	rows, err := d.query(ctx, `SELECT CAST(type AS TEXT), CAST(value AS TEXT), operatorbundle_name`+d.keyColumns("dependencies", keys)+` FROM dependencies`+sel.where+` ORDER BY rowid`, sel.args...)
	if err != nil {
		return fmt.Errorf("read table dependencies: %w", err)
	}
	defer rows.Close()
	g := grouper[Dependency]{m: t.deps}
	defer g.flush()
	var typ, val, name sql.NullString
	var kv keyValues
	dest := kv.dest(keys, &typ, &val, &name)
	types := texts{}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return fmt.Errorf("read table dependencies: %w", err)
		}
		kv.check(keys, name)
		if !name.Valid || !sel.keep(name.String) {
			continue
		}
		dep := Dependency{Type: types.str(typ.String), Value: val.String}
		if sel.want == nil && d.depsFirstBundle == "" {
			// Migration 9 copied the first row's value into every row: that
			// row alone is known to be genuine.
			d.depsFirst, d.depsFirstBundle = dep, name.String
		}
		g.add(name.String, dep)
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
	rows, err := d.query(ctx, `SELECT CAST(image AS TEXT), operatorbundle_name FROM related_image`+sel.where, sel.args...)
	if err != nil {
		return fmt.Errorf("read table related_image: %w", err)
	}
	g := grouper[string]{m: t.related}
	defer rows.Close()
	var img, name sql.NullString
	for rows.Next() {
		if err := rows.Scan(&img, &name); err != nil {
			return fmt.Errorf("read table related_image: %w", err)
		}
		if !name.Valid || img.String == "" || !sel.keep(name.String) {
			continue
		}
		g.add(name.String, img.String)
	}
	g.flush()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table related_image: %w", err)
	}
	return nil
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

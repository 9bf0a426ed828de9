package legacy

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// RepairAttachedByName: properties, dependencies or api_provider rows
// whose (operatorbundle_version, operatorbundle_path) key matches no
// operatorbundle row (what PRAGMA foreign_key_check lists), attached to
// the bundle of the same name as the sqlite server's name-keyed queries
// did. opm's migration dropped them.
const RepairAttachedByName RepairKind = "attached-by-name"

// keyedTables are the tables whose rows reference a bundle by name,
// version and bundlepath.
var keyedTables = [...]string{"properties", "dependencies", "api_provider"}

// findAttachedByName reports, per table and bundle, rows whose version or
// bundlepath differs from the bundle row of their name. Rows with a NULL
// path are the null-property-path damage, reported on its own.
func (d *DB) findAttachedByName(ctx context.Context) error {
	for i, table := range keyedTables {
		if !d.keyed(table) {
			continue
		}
		if !d.keys[i].offKey() {
			// The loaders saw every row's key: none is off its bundle's,
			// so the grouping query (a sort of the whole table) would
			// find nothing.
			continue
		}
		// The bundle's own key comes from rowKey (the covering index),
		// not from a join: reading operatorbundle's
		// version and bundlepath through its table would walk the
		// overflow pages of every csv and bundle value.
		q := fmt.Sprintf(`SELECT operatorbundle_name, operatorbundle_version, operatorbundle_path,
			CAST(operatorbundle_version AS TEXT), CAST(operatorbundle_path AS TEXT), count(*)
			FROM %s WHERE operatorbundle_path IS NOT NULL AND operatorbundle_name IS NOT NULL
			GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, table)
		rows, err := d.db.QueryContext(ctx, q)
		if err != nil {
			return fmt.Errorf("check keys of table %s: %w", table, err)
		}
		for rows.Next() {
			var name string
			var rawVer, rawPath sql.NullString
			var ver, path nullText
			var n int
			if err := rows.Scan(&name, &rawVer, &rawPath, &ver, &path, &n); err != nil {
				rows.Close()
				return fmt.Errorf("check keys of table %s: %w", table, err)
			}
			key, ok, err := d.rowKey(ctx, name)
			if err != nil {
				rows.Close()
				return fmt.Errorf("check keys of table %s: %w", table, err)
			}
			if !ok || rawVer == key.version && rawPath == key.bundlePath {
				continue // no bundle of that name, or attached by its key
			}
			bver, bpath := textOf(key.version), textOf(key.bundlePath)
			var differ []string
			if path != bpath {
				differ = append(differ, fmt.Sprintf("bundlepath %s (the bundle's is %s)", path, bpath))
			}
			if ver != bver {
				differ = append(differ, fmt.Sprintf("version %s (the bundle's is %s)", ver, bver))
			}
			pkg, _ := d.packageOf(name)
			d.repairs = append(d.repairs, Repair{Kind: RepairAttachedByName, Table: table,
				Package: pkg, Bundle: name, Detail: fmt.Sprintf(
					"%d %s row(s) of bundle %s are keyed by %s, which matches no operatorbundle row; attached by name, as the sqlite server's queries did (opm's migration dropped them)",
					n, table, name, strings.Join(differ, " and "))})
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("check keys of table %s: %w", table, err)
		}
	}
	return nil
}

// keyed reports whether table keys its rows by bundle version and
// bundlepath as well as by name.
func (d *DB) keyed(table string) bool {
	return d.sch.col(table, "operatorbundle_name") && d.sch.col(table, "operatorbundle_path") && d.sch.col(table, "operatorbundle_version")
}

// recordsKeys reports whether table's loader records its rows' keys: it
// is one of keyedTables and keyed.
func (d *DB) recordsKeys(table string) bool {
	return slices.Contains(keyedTables[:], table) && d.keyed(table)
}

// keyColumns is what a loader of table selects, after its own columns, to
// record its rows' keys: ", " and the raw version and bundlepath columns
// (nothing for a table that is not keyed or a read that checks no keys),
// checked by keys.add with the raw name.
func (d *DB) keyColumns(table string, keys *keyCheck) string {
	if keys.match == nil || !d.recordsKeys(table) {
		return ""
	}
	return ", operatorbundle_version, operatorbundle_path"
}

// keyCheck notes, as a loader streams a keyed table, whether a row is
// keyed other than the bundle row of its name, comparing as
// findAttachedByName's query does. A table not streamed to its end
// (complete false) is always checked by the query.
type keyCheck struct {
	match         keyMatcher
	off, complete bool
}

// add checks one row's key; rows the query leaves out (NULL name or
// bundlepath) and names of no bundle row are skipped.
func (k *keyCheck) add(name, version, path sql.NullString) {
	if k.off || !name.Valid || !path.Valid || k.match == nil {
		return
	}
	if known, same := k.match(name.String, version, path); known && !same {
		k.off = true
	}
}

// offKey reports whether the table may hold a row keyed off its bundle.
func (k *keyCheck) offKey() bool { return !k.complete || k.off }

// textOf is v as nullText prints it.
func textOf(v sql.NullString) nullText {
	var t nullText
	if v.Valid {
		_ = t.Scan(v.String)
	} else {
		_ = t.Scan(nil)
	}
	return t
}

// nullText scans a nullable TEXT column; NULL reads as the word NULL, as
// messages print it.
type nullText string

// Scan implements sql.Scanner.
func (t *nullText) Scan(v any) error {
	switch x := v.(type) {
	case nil:
		*t = "NULL"
	case string:
		*t = nullText(fmt.Sprintf("%q", x))
	case []byte:
		*t = nullText(fmt.Sprintf("%q", x))
	default:
		*t = nullText(fmt.Sprint(x))
	}
	return nil
}

package legacy

import (
	"context"
	"database/sql"
	"fmt"
)

// Entries calls fn with every channel_entry row of a package that has a
// package row (the rows ReadPackage returns, across all packages), in
// entry_id order. It reads channel_entry alone, so a server can link the
// catalog's update graph without reading every package.
func (db *DB) Entries(ctx context.Context, fn func(ChannelEntry) error) error {
	want := make(map[string]bool, len(db.pkgs))
	for n := range db.pkgs {
		want[n] = true
	}
	var ferr error
	err := db.readEntries(ctx, rowSel{want: want}, func(e ChannelEntry) {
		if ferr == nil {
			ferr = fn(e)
		}
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", db.path, err)
	}
	return nil
}

// BundleNames lists the names of the operatorbundle rows (rows without a
// name are migration 5's junk), read from the table's name index.
func (db *DB) BundleNames(ctx context.Context) ([]string, error) {
	var names []string
	if err := db.db.SelectContext(ctx, &names, `SELECT name FROM operatorbundle WHERE name IS NOT NULL`); err != nil {
		return nil, fmt.Errorf("read %s: table operatorbundle: %w", db.path, err)
	}
	return names, nil
}

// StoredAPIs reports whether ReadPackage serves every bundle's olm.gvk
// properties and its provided and required APIs exactly as the
// properties, api_provider and api_requirer rows hold them, nothing
// derived from the manifests: the four tables exist, the api tables are
// keyed by bundle name, and no operatorbundle row has a NULL or empty
// version (migrations 6 to 9 skipped such rows, and the reader derives
// theirs). Callers may then answer API questions from GVKProperties and
// APIRows instead of reading every package.
func (db *DB) StoredAPIs(ctx context.Context) (bool, error) {
	for _, t := range []string{"properties", "dependencies", "api_provider", "api_requirer"} {
		if !db.sch.has(t) {
			return false, nil
		}
	}
	if db.apiKeyedByEntry() || !db.sch.col("api_requirer", "operatorbundle_name") {
		return false, nil
	}
	if !db.sch.col("operatorbundle", "version") {
		return true, nil
	}
	// Only opm's covering index answers this without walking every
	// row's csv and bundle overflow pages.
	var pk int
	if err := db.db.GetContext(ctx, &pk, `SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'pk' AND tbl_name = 'operatorbundle'`); err != nil {
		return false, fmt.Errorf("read %s: schema: %w", db.path, err)
	}
	if pk == 0 || !db.sch.col("operatorbundle", "bundlepath") {
		return false, nil
	}
	var unversioned int
	err := db.db.GetContext(ctx, &unversioned, `SELECT count(*) FROM operatorbundle INDEXED BY pk WHERE name IS NOT NULL AND (version IS NULL OR version = '')`)
	if err != nil {
		return false, fmt.Errorf("read %s: table operatorbundle: %w", db.path, err)
	}
	return unversioned == 0, nil
}

// GVKProperties calls fn with the bundle name and value of every olm.gvk
// properties row with a bundle name.
func (db *DB) GVKProperties(ctx context.Context, fn func(bundle, value string) error) error {
	rows, err := db.db.QueryContext(ctx, `SELECT operatorbundle_name, CAST(value AS TEXT) FROM properties WHERE CAST(type AS TEXT) = 'olm.gvk' AND operatorbundle_name IS NOT NULL`)
	if err != nil {
		return fmt.Errorf("read %s: table properties: %w", db.path, err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, value sql.NullString
		if err := rows.Scan(&name, &value); err != nil {
			return fmt.Errorf("read %s: table properties: %w", db.path, err)
		}
		if err := fn(name.String, value.String); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read %s: table properties: %w", db.path, err)
	}
	return nil
}

// APIRows calls fn with the bundle name and API (plural from the api
// table) of every api_provider and api_requirer row keyed by a bundle
// name, as ReadPackage reads them.
func (db *DB) APIRows(ctx context.Context, fn func(bundle string, a API) error) error {
	plural, err := db.apiPlurals(ctx)
	if err != nil {
		return err
	}
	for _, table := range []string{"api_provider", "api_requirer"} {
		out := map[string][]API{}
		if err := db.readAPIs(ctx, table, out, plural, &keyCheck{}, rowSel{}); err != nil {
			return fmt.Errorf("read %s: %w", db.path, err)
		}
		for name, as := range out {
			for _, a := range as {
				if err := fn(name, a); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

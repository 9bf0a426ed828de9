package legacy

import (
	"context"
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

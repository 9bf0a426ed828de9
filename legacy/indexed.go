package legacy

import (
	"context"
)

// loadIndexed opens a database that qualifies for reading by rowid ranges
// (lazyEligible). With Lazy it reads the package and channel rows only.
// Otherwise it builds the rowid index now and runs the catalog-wide
// checks from it, holding per bundle only its key (version, bundlepath),
// the package whose entries first name it and its rows' rowid runs: the
// rows themselves are read per package by ReadPackage, and for the checks
// only those of bundles the checks single out (stranded bundles, names
// without an operatorbundle row).
func (d *DB) loadIndexed(ctx context.Context) error {
	d.lazy = &lazyIndex{}
	if err := d.loadPackages(ctx); err != nil {
		return err
	}
	if d.opts.lazy {
		d.repairs = d.pkgRepairs
		return nil
	}
	if err := d.loadBundleFacts(ctx, d.lazy); err != nil {
		return err
	}
	x, err := d.index(ctx)
	if err != nil {
		return err
	}
	d.repairs = append(append(d.repairs, d.pkgRepairs...), d.junkRepairs...)
	orphans, err := d.readKeyedOf(ctx, x, d.orphanNames(x))
	if err != nil {
		return err
	}
	d.findOrphans(orphans, x.entryCount)
	read := func(names []string) (*tables, error) { return d.readKeyedOf(ctx, x, names) }
	if err := d.findStranded(ctx, read); err != nil {
		return err
	}
	if err := d.findAttachedByName(ctx); err != nil {
		return err
	}
	// Only the checks needed the bundle keys and entry packages:
	// ReadPackage reads each bundle's key with its row.
	x.facts = nil
	return nil
}

// orphanNames are the keys of the bundle-keyed tables that name no
// operatorbundle row.
func (d *DB) orphanNames(x *lazyIndex) []string {
	var out []string
	for id := x.facts.n; id < x.keys.count(); id++ {
		for i := range x.keyed {
			if x.keyed[i].has(id) {
				out = append(out, x.keys.name(id))
				break
			}
		}
	}
	return out
}

// readKeyedOf reads the bundle-keyed rows of the named bundles.
func (d *DB) readKeyedOf(ctx context.Context, x *lazyIndex, names []string) (*tables, error) {
	t := newTables(x)
	if len(names) == 0 {
		return t, nil
	}
	return t, d.readKeyed(ctx, x, t, names)
}

// newTables is an empty tables value for a lazy read.
func newTables(x *lazyIndex) *tables {
	return &tables{rows: map[string]bundleKey{}, props: map[string][]propRow{}, deps: map[string][]Dependency{},
		related: map[string][]string{}, provided: map[string][]API{}, required: map[string][]API{}, deprecated: x.deprecated}
}

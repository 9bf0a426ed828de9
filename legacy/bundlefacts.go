package legacy

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
)

// bundleFacts is what the catalog-wide checks of an indexed DB need of
// every operatorbundle row, held compactly by key id (the rows' names are
// interned first, so ids below n are exactly the rows): a hash of each
// row's (version, bundlepath) key for keyCheck, and the package whose
// entries first name it. It is dropped once Open has run the checks.
type bundleFacts struct {
	n        int32
	seed     maphash.Seed
	keyHash  []uint64 // by id < n
	entryPkg []int32  // by id < n: the package's id in pkgKeys, -1 when no entry names it
}

// hashKey hashes a (version, bundlepath) key as its columns' text, NULL
// apart from "".
func (f *bundleFacts) hashKey(version, path sql.NullString) uint64 {
	var h maphash.Hash
	h.SetSeed(f.seed)
	for _, v := range [2]sql.NullString{version, path} {
		if !v.Valid {
			h.WriteByte(2)
			continue
		}
		h.WriteByte(1)
		h.WriteString(v.String)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// loadBundleFacts reads the indexed columns of operatorbundle (name,
// version and bundlepath, from the covering index) into x.keys and
// x.facts, and reports migration 5's junk rows.
func (d *DB) loadBundleFacts(ctx context.Context, x *lazyIndex) error {
	if err := d.countJunkRows(ctx); err != nil {
		return err
	}
	q := fmt.Sprintf(`SELECT name, %s, %s FROM operatorbundle WHERE name IS NOT NULL`,
		colOrNull(d.sch, "operatorbundle", "version"), colOrNull(d.sch, "operatorbundle", "bundlepath"))
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		return fmt.Errorf("read table operatorbundle: %w", err)
	}
	defer rows.Close()
	f := &bundleFacts{seed: maphash.MakeSeed(), keyHash: make([]uint64, 0, d.sizeHint)}
	x.keys.reserve(d.sizeHint)
	var name, version, path sql.NullString // scanned into through interfaces: once, not per row
	for rows.Next() {
		if err := rows.Scan(&name, &version, &path); err != nil {
			return fmt.Errorf("read table operatorbundle: %w", err)
		}
		if id := x.keys.id(name.String); int(id) == len(f.keyHash) {
			f.keyHash = append(f.keyHash, f.hashKey(version, path))
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table operatorbundle: %w", err)
	}
	f.n = int32(len(f.keyHash))
	f.entryPkg = make([]int32, f.n)
	for i := range f.entryPkg {
		f.entryPkg[i] = -1
	}
	x.facts = f
	return nil
}

// hasRow reports whether an operatorbundle row has the name.
func (d *DB) hasRow(name string) bool {
	if d.lazy != nil && d.lazy.facts != nil {
		id, ok := d.lazy.keys.lookup(name)
		return ok && id < d.lazy.facts.n
	}
	_, ok := d.rows[name]
	return ok
}

// unnamedRows lists the names of the operatorbundle rows no channel
// entry names, in no order.
func (d *DB) unnamedRows() []string {
	var out []string
	if x := d.lazy; x != nil && x.facts != nil {
		for id, p := range x.facts.entryPkg {
			if p < 0 {
				out = append(out, x.keys.name(int32(id)))
			}
		}
		return out
	}
	for n := range d.rows {
		if _, ok := d.entryPkg[n]; !ok {
			out = append(out, n)
		}
	}
	return out
}

// packageOf is the package whose channel entries first name the bundle.
func (d *DB) packageOf(name string) (string, bool) {
	if x := d.lazy; x != nil && x.facts != nil {
		id, ok := x.keys.lookup(name)
		if !ok || id >= x.facts.n || x.facts.entryPkg[id] < 0 {
			return "", false
		}
		return x.pkgKeys.name(x.facts.entryPkg[id]), true
	}
	p, ok := d.entryPkg[name]
	return p, ok
}

// rowKey is the (version, bundlepath) key of the operatorbundle row name.
func (d *DB) rowKey(ctx context.Context, name string) (bundleKey, bool, error) {
	if d.lazy == nil || d.lazy.facts == nil {
		k, ok := d.rows[name]
		return k, ok, nil
	}
	var k bundleKey
	// name, version and bundlepath are all in the "pk" index (level >= 6),
	// which the planner takes as covering.
	q := fmt.Sprintf(`SELECT %s, %s FROM operatorbundle WHERE name = ?`,
		d.sch.colOr("operatorbundle", "version"), d.sch.colOr("operatorbundle", "bundlepath"))
	err := d.db.QueryRowContext(ctx, q, name).Scan(&k.version, &k.bundlePath)
	if errors.Is(err, sql.ErrNoRows) {
		return k, false, nil
	}
	if err != nil {
		return k, false, fmt.Errorf("read table operatorbundle: %w", err)
	}
	return k, true, nil
}

// keyMatcher is keyCheck's view of the bundle rows' keys: whether a row
// named name exists and whether its key is (version, path).
type keyMatcher func(name string, version, path sql.NullString) (known, same bool)

// matchRows matches against the keys of an eager DB.
func matchRows(rows map[string]bundleKey) keyMatcher {
	return func(name string, version, path sql.NullString) (bool, bool) {
		key, ok := rows[name]
		return ok, ok && version == key.version && path == key.bundlePath
	}
}

package legacy

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/internal/strarena"
)

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
func (d *DB) apiPlurals(ctx context.Context) (*plurals, error) {
	plural := &plurals{}
	if !d.sch.has("api") {
		return plural, nil
	}
	rows, err := d.db.QueryContext(ctx, `SELECT group_name, version, kind, plural FROM api`)
	if err != nil {
		return nil, fmt.Errorf("read table api: %w", err)
	}
	defer rows.Close()
	// Scanned into through interfaces: declared once, not per row.
	var g, v, k, p sql.NullString
	for rows.Next() {
		if err := rows.Scan(&g, &v, &k, &p); err != nil {
			return nil, fmt.Errorf("read table api: %w", err)
		}
		plural.set([3]string{g.String, v.String, k.String}, p.String)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read table api: %w", err)
	}
	plural.keys.trim()
	return plural, nil
}

// plurals are the api table's plurals by group, version and kind, kept
// for as long as the DB (an indexed DB reads api rows per package): the
// keys interned in one keyIDs and the plurals in an arena, about a third
// of a map of string triples.
type plurals struct {
	keys   keyIDs
	arena  strarena.Arena
	plural []string // by key id
}

// pluralKey is gvk as one key: each part but the last after its length,
// so that no two triples make the same key.
func pluralKey(gvk [3]string) string {
	b := make([]byte, 0, len(gvk[0])+len(gvk[1])+len(gvk[2])+2*binary.MaxVarintLen64)
	for _, part := range gvk[:2] {
		b = binary.AppendUvarint(b, uint64(len(part)))
		b = append(b, part...)
	}
	return string(append(b, gvk[2]...))
}

// set sets the plural of gvk; a later row of the same gvk wins, as it did
// in a map.
func (p *plurals) set(gvk [3]string, plural string) {
	id := p.keys.id(pluralKey(gvk))
	if int(id) == len(p.plural) {
		p.plural = append(p.plural, "")
	}
	p.plural[id] = p.arena.Clone(plural)
}

// of is the plural of gvk, "" when the api table has no row for it.
func (p *plurals) of(gvk [3]string) string {
	if id, ok := p.keys.lookup(pluralKey(gvk)); ok {
		return p.plural[id]
	}
	return ""
}

// readAPIs adds the selected rows of an api table to out, keyed as stored
// (bundle name, or channel_entry_id below level 6), with plurals.
func (d *DB) readAPIs(ctx context.Context, table string, out map[string][]API, plural *plurals, keys *keyCheck, sel rowSel) error {
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
			kv.check(keys, sql.NullString{String: string(ref), Valid: !nameNull})
		}
		if len(ref) == 0 || !sel.keepBytes(ref) {
			continue
		}
		gvk := [3]string{strs.of(g), strs.of(v), strs.of(k)}
		a, ok := intern[gvk]
		if !ok {
			a = API{GVK: manifest.GVK{Group: gvk[0], Version: gvk[1], Kind: gvk[2]}, Plural: plural.of(gvk)}
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

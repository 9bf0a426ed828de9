package legacy

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// findOrphans reports rows that point at a package or bundle without a row
// of its own: channels and channel entries of a package missing from the
// package table (their bundles cannot be read through any package), and
// bundle-keyed rows naming no operatorbundle row (opm index prune left
// related_image rows behind, operator-registry#542). One line per table.
//
// t holds the bundle-keyed rows to check (all of them, or at least those
// of every name without an operatorbundle row); entryCount is the number
// of channel_entry rows by package.
func (d *DB) findOrphans(t *tables, entryCount map[string]int) {
	var missingPkgs []string
	for p := range d.channels {
		if _, ok := d.pkgs[p]; !ok {
			missingPkgs = append(missingPkgs, p)
		}
	}
	for p := range entryCount {
		if _, ok := d.pkgs[p]; !ok && d.channels[p] == nil {
			missingPkgs = append(missingPkgs, p)
		}
	}
	sort.Strings(missingPkgs)
	for _, p := range missingPkgs {
		d.repairs = append(d.repairs, Repair{Kind: RepairOrphanRows, Table: "channel_entry", Package: p, Detail: fmt.Sprintf(
			"%d channel row(s) and %d channel_entry row(s) name package %q, which has no package row; its bundles are not reachable through any package",
			len(d.channels[p]), entryCount[p], p)})
	}
	count := func(table string, n int, names []string) {
		if n == 0 {
			return
		}
		sort.Strings(names)
		if len(names) > 3 {
			names = append(names[:3], "...")
		}
		d.repairs = append(d.repairs, Repair{Kind: RepairOrphanRows, Table: table, Detail: fmt.Sprintf(
			"%d %s row(s) name bundles without an operatorbundle row (%s); ignored", n, table, strings.Join(names, ", "))})
	}
	orphans := func(table string, keys func(func(string, int))) {
		n := 0
		var names []string
		keys(func(name string, rows int) {
			if !d.hasRow(name) {
				n += rows
				names = append(names, name)
			}
		})
		count(table, n, names)
	}
	orphans("properties", func(f func(string, int)) {
		for k, v := range t.props {
			f(k, len(v))
		}
	})
	orphans("dependencies", func(f func(string, int)) {
		for k, v := range t.deps {
			f(k, len(v))
		}
	})
	orphans("related_image", func(f func(string, int)) {
		for k, v := range t.related {
			f(k, len(v))
		}
	})
	if !d.apiKeyedByEntry() {
		orphans("api_provider", func(f func(string, int)) {
			for k, v := range t.provided {
				f(k, len(v))
			}
		})
		orphans("api_requirer", func(f func(string, int)) {
			for k, v := range t.required {
				f(k, len(v))
			}
		})
	}
}

// findStranded finds operatorbundle rows no channel_entry names and
// attributes each to a package: by its olm.package property, else by the
// CSV's replaces/skips naming a bundle of a package, else by a package
// name prefix of the bundle name. opm dropped these bundles silently.
// read, when not nil, reads the named bundles' keyed rows (the DB holds
// them otherwise).
func (d *DB) findStranded(ctx context.Context, read func([]string) (*tables, error)) error {
	d.stranded = map[string][]string{}
	d.strandedHow = map[string]string{}
	names := d.unnamedRows()
	sort.Strings(names)
	t := &d.tables
	if read != nil && len(names) > 0 {
		var err error
		if t, err = read(names); err != nil {
			return err
		}
	}
	for _, n := range names {
		pkg, how, err := d.attribute(ctx, t, n)
		if err != nil {
			return err
		}
		if pkg == "" {
			d.repairs = append(d.repairs, Repair{Kind: RepairStranded, Table: "channel_entry", Bundle: n,
				Detail: "no channel_entry names this bundle and no package could be determined from its olm.package property, CSV or name; it belongs to no package and is not read"})
			continue
		}
		d.stranded[pkg] = append(d.stranded[pkg], n)
		d.strandedHow[n] = how
	}
	return nil
}

func (d *DB) attribute(ctx context.Context, t *tables, name string) (pkg, how string, err error) {
	for _, p := range t.props[name] {
		if p.Type != "olm.package" {
			continue
		}
		var v struct {
			PackageName string `json:"packageName"`
		}
		if json.Unmarshal([]byte(p.Value), &v) == nil {
			if _, ok := d.pkgs[v.PackageName]; ok {
				return v.PackageName, "its olm.package property", nil
			}
		}
	}
	csv, err := d.fetchCSV(ctx, name)
	var ue *unreadableError
	if errors.As(err, &ue) {
		csv, err = nil, nil // nothing to learn from it; the name may still tell
	}
	if err != nil {
		return "", "", err
	}
	if csv != nil {
		for _, ref := range append([]string{csv.replaces}, csv.skips...) {
			if p, ok := d.packageOf(ref); ok && ref != "" {
				if _, known := d.pkgs[p]; known {
					return p, fmt.Sprintf("its CSV's replaces/skips naming %s", ref), nil
				}
			}
		}
	}
	best := ""
	for _, p := range d.names {
		if len(p) > len(best) && (strings.HasPrefix(name, p+".") || strings.HasPrefix(name, p+"-")) {
			best = p
		}
	}
	if best != "" {
		return best, "its name", nil
	}
	return "", "", nil
}

// fetchCSV reads and parses one bundle's CSV (the csv column, else the
// ClusterServiceVersion among the bundle column's objects); nil when
// neither holds one.
func (d *DB) fetchCSV(ctx context.Context, name string) (*csvDoc, error) {
	var c, b []byte
	err := d.db.QueryRowxContext(ctx, `SELECT csv, bundle FROM operatorbundle WHERE name = ?`, name).Scan(&c, &b)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read operatorbundle %s: %w", name, err)
	}
	if c == nil && b != nil {
		objs, err := SplitObjects(b)
		if err != nil {
			return nil, &unreadableError{column: "bundle", err: err}
		}
		c = findCSV(objs)
	}
	if c == nil {
		return nil, nil
	}
	doc, err := parseCSV(c)
	if err != nil {
		return nil, &unreadableError{column: "csv", err: err}
	}
	return doc, nil
}

// checkDependencies detects migration 9's corruption (operator-registry
// #519): its UPDATE with an uncorrelated subquery gave every dependencies
// row the first row's value. The signature is a table whose rows (at least
// two) all hold one value while api_requirer, which migration 9 left
// intact, or the CSV of one of those bundles lists other required APIs.
// The CSV check is bounded to a sample of bundles so that Open stays cheap
// on large indexes whose bundles legitimately share one dependency.
func (d *DB) checkDependencies(ctx context.Context) error {
	rows := 0
	for _, ds := range d.deps {
		for _, x := range ds {
			if rows == 0 {
				d.depsValue = x.Value
			} else if x.Value != d.depsValue {
				d.depsValue = ""
				return nil // two values: not migration 9's signature
			}
			rows++
		}
	}
	if rows < 2 {
		d.depsValue = ""
		return nil
	}
	names := make([]string, 0, len(d.deps))
	for n := range d.deps {
		names = append(names, n)
	}
	sort.Strings(names)
	confirm := func(why string) {
		d.depsCorrupt = true
		d.repairs = append(d.repairs, Repair{Kind: RepairCorruptDependencies, Table: "dependencies",
			Detail: fmt.Sprintf("all %d dependencies rows hold the same value %s while %s: migration 9 corruption (operator-registry#519); per bundle the copies are dropped and olm.gvk dependencies re-derived from api_requirer or the CSV", rows, d.depsValue, why)})
	}
	// A row whose type does not fit the copied value (an olm.gvk row holding
	// an olm.package value, ...) can only come from the corruption.
	for _, n := range names {
		for _, x := range d.deps[n] {
			if !valueFits(x.Type, d.depsValue) {
				confirm(fmt.Sprintf("%s rows (e.g. of %s) cannot hold such a value", x.Type, n))
				return nil
			}
		}
	}
	for _, n := range names {
		if req := d.required[n]; len(req) > 0 && !sameGVKs(req, []string{d.depsValue}) {
			confirm(fmt.Sprintf("api_requirer lists other required APIs for %s", n))
			return nil
		}
	}
	const sample = 8
	checked := 0
	for _, n := range names {
		if len(d.required[n]) > 0 {
			continue // agrees with api_requirer
		}
		if checked == sample {
			break
		}
		checked++
		csv, err := d.fetchCSV(ctx, n)
		if err != nil {
			return err
		}
		if csv == nil {
			continue
		}
		if req := csv.requiredAPIs(); len(req) > 0 && !sameGVKs(req, []string{d.depsValue}) {
			confirm(fmt.Sprintf("the CSV of %s requires other APIs", n))
			return nil
		}
	}
	return nil
}

// valueFits reports whether a dependency value has the shape its type
// needs; types the reader does not know fit anything.
func valueFits(typ, value string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(value), &m) != nil {
		return false
	}
	has := func(keys ...string) bool {
		for _, k := range keys {
			if _, ok := m[k]; ok {
				return true
			}
		}
		return false
	}
	switch typ {
	case "olm.gvk":
		return has("kind") && has("version")
	case "olm.package":
		return has("packageName")
	case "olm.label":
		return has("label")
	case "olm.constraint":
		return has("cel", "all", "any", "not", "gvk", "package")
	}
	return true
}

// canonGVK renders an olm.gvk value with opm's key order, or "" when v is
// not a gvk object.
func canonGVK(v string) string {
	var g struct {
		Group   *string `json:"group"`
		Kind    *string `json:"kind"`
		Version *string `json:"version"`
	}
	if json.Unmarshal([]byte(v), &g) != nil || g.Kind == nil || g.Version == nil {
		return ""
	}
	grp := ""
	if g.Group != nil {
		grp = *g.Group
	}
	return gvkValue(API{GVK: manifest.GVK{Group: grp, Kind: *g.Kind, Version: *g.Version}})
}

// sameGVKs reports whether apis and the gvk values name the same set.
func sameGVKs(apis []API, values []string) bool {
	a := map[string]bool{}
	for _, x := range apis {
		a[gvkValue(x)] = true
	}
	b := map[string]bool{}
	for _, v := range values {
		c := canonGVK(v)
		if c == "" {
			return false
		}
		b[c] = true
	}
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

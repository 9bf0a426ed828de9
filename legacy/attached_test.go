package legacy

import (
	"database/sql"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/testinput"
)

// TestRowsAttachedByNameAreRepairs: properties, dependencies and
// api_provider rows whose (version, bundlepath) key matches no bundle
// (what PRAGMA foreign_key_check lists) are still attached by name, as the
// sqlite server's queries did, but each is reported as a repair naming the
// rows and the key that differed.
func TestRowsAttachedByNameAreRepairs(t *testing.T) {
	path := buildDB(t, 13, smallFBBBundles(t))
	stale := "example.com/test/foo-bundle:stale"
	testinput.ExecSQL(t, path,
		`PRAGMA foreign_keys = OFF`,
		`UPDATE properties SET operatorbundle_path = '`+stale+`' WHERE operatorbundle_name = 'foo.v0.3.1'`,
		`UPDATE dependencies SET operatorbundle_path = '`+stale+`' WHERE operatorbundle_name = 'foo.v0.3.1'`,
		`UPDATE api_provider SET operatorbundle_path = '`+stale+`' WHERE operatorbundle_name = 'foo.v0.3.1'`)
	db := openPath(t, path)
	all := readAll(t, db)
	clean := readAll(t, openPath(t, buildDB(t, 13, smallFBBBundles(t))))
	rs := repairsOf(db.Repairs(), RepairAttachedByName)
	var tables []string
	for _, r := range rs {
		tables = append(tables, r.Table)
		assert.Equal(t, "foo", r.Package)
		assert.Equal(t, "foo.v0.3.1", r.Bundle)
		assert.Contains(t, r.Detail, stale, "names the key that differed")
		assert.Contains(t, r.Detail, "bundlepath")
	}
	assert.ElementsMatch(t, []string{"properties", "dependencies", "api_provider"}, tables)
	// Attached by name: the bundle keeps everything.
	require.Equal(t, len(clean["foo"].Bundles), len(all["foo"].Bundles))
	for i, b := range all["foo"].Bundles {
		assert.Equal(t, sortedProps(clean["foo"].Bundles[i].Properties), sortedProps(b.Properties), b.Name)
	}
}

func TestKeyCheckOffKey(t *testing.T) {
	str := func(s string) sql.NullString { return sql.NullString{String: s, Valid: true} }
	rows := map[string]bundleKey{
		"a.v1": {version: str("1.0.0"), bundlePath: str("img/a:1")},
		"b.v1": {bundlePath: str("img/b:1")}, // NULL version
	}
	tests := []struct {
		name string
		add  [][3]sql.NullString
		open bool // not streamed to the end
		want bool
	}{
		{name: "not streamed to the end", open: true, want: true},
		{name: "every key matches", add: [][3]sql.NullString{{str("a.v1"), str("1.0.0"), str("img/a:1")}, {str("b.v1"), {}, str("img/b:1")}}},
		{name: "version differs", add: [][3]sql.NullString{{str("a.v1"), str("1.0.0"), str("img/a:1")}, {str("a.v1"), str("1.0.1"), str("img/a:1")}}, want: true},
		{name: "path differs", add: [][3]sql.NullString{{str("b.v1"), {}, str("img/b:2")}}, want: true},
		{name: "NULL vs empty version", add: [][3]sql.NullString{{str("b.v1"), str(""), str("img/b:1")}}, want: true},
		{name: "no bundle of that name", add: [][3]sql.NullString{{str("c.v1"), str("1"), str("x")}}},
		{name: "NULL name", add: [][3]sql.NullString{{{}, str("1"), str("x")}}},
		{name: "NULL path left to its own check", add: [][3]sql.NullString{{str("a.v1"), str("9"), {}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			k := keyCheck{match: matchRows(rows)}
			for _, r := range tc.add {
				k.add(r[0], r[1], r[2])
			}
			k.complete = !tc.open
			require.Equal(t, tc.want, k.offKey())
		})
	}
}

// TestIndexKeyCheck: the rowid index compares each keyed row's (version,
// bundlepath) with its bundle's as the columns' bytes, NULL apart from
// "", so that exactly the tables holding a row keyed off its bundle get
// the attached-by-name query.
func TestIndexKeyCheck(t *testing.T) {
	const row = `WHERE operatorbundle_name = 'foo.v0.3.1'`
	tests := []struct {
		name   string
		update string
		want   []string // tables with an attached-by-name repair
	}{
		{name: "every key matches"},
		{name: "version differs", update: `UPDATE dependencies SET operatorbundle_version = '9.9.9' ` + row, want: []string{"dependencies"}},
		{name: "NULL version", update: `UPDATE properties SET operatorbundle_version = NULL ` + row, want: []string{"properties"}},
		{name: "empty version", update: `UPDATE api_provider SET operatorbundle_version = '' ` + row, want: []string{"api_provider"}},
		{name: "version and path split elsewhere",
			update: `UPDATE properties SET operatorbundle_path = substr(operatorbundle_version, -2) || operatorbundle_path, operatorbundle_version = substr(operatorbundle_version, 1, length(operatorbundle_version) - 2) ` + row,
			want:   []string{"properties"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := buildDB(t, 13, smallFBBBundles(t))
			if tc.update != "" {
				testinput.ExecSQL(t, path, `PRAGMA foreign_keys = OFF`, tc.update)
			}
			db := openPath(t, path)
			require.True(t, db.lazy != nil, "indexed open")
			var tables []string
			for _, r := range repairsOf(db.Repairs(), RepairAttachedByName) {
				tables = append(tables, r.Table)
			}
			assert.ElementsMatch(t, tc.want, tables)
		})
	}
}

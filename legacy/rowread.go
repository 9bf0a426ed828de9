package legacy

import (
	"database/sql"
)

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
func (kv *keyValues) check(keys *keyCheck, name sql.NullString) {
	if keys.match != nil {
		keys.add(name, kv.version, kv.path)
	}
}

// texts interns the short strings a table repeats (types, groups, kinds).
type texts map[string]string

// str is of for a string.
func (t texts) str(s string) string {
	if v, ok := t[s]; ok {
		return v
	}
	t[s] = s
	return s
}

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

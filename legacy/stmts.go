package legacy

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps the prepared statements of the queries a DB runs once
// per package (the same few texts, thousands of times), so that sqlite
// parses and plans each text once per connection rather than per call.
type stmtCache struct {
	m sync.Map // query text -> *sql.Stmt
}

// query runs q with args through its cached prepared statement.
func (d *DB) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	if v, ok := d.stmts.m.Load(q); ok {
		return v.(*sql.Stmt).QueryContext(ctx, args...)
	}
	st, err := d.db.PrepareContext(ctx, q)
	if err != nil {
		return nil, err
	}
	if v, loaded := d.stmts.m.LoadOrStore(q, st); loaded {
		st.Close()
		st = v.(*sql.Stmt)
	}
	return st.QueryContext(ctx, args...)
}

// close closes every cached statement.
func (c *stmtCache) close() {
	c.m.Range(func(k, v any) bool {
		v.(*sql.Stmt).Close()
		c.m.Delete(k)
		return true
	})
}

// bundleColumns reads a bundle's csv and bundle columns (the first row of
// that name) through the cached prepared statement: a server reads them
// once per bundle it answers with, ten thousand times at 10,000 bundles,
// and preparing the text each time took a third of the read. No such row
// is sql.ErrNoRows.
func (d *DB) bundleColumns(ctx context.Context, name string) (csv, bundle []byte, err error) {
	var c, b blob
	err = d.firstRow(ctx, `SELECT csv, bundle FROM operatorbundle WHERE name = ?`, name, &c, &b)
	return c.b, b.b, err
}

// firstRow scans the first row of query q (one argument) into dest
// through the cached prepared statement; no row is sql.ErrNoRows.
func (d *DB) firstRow(ctx context.Context, q string, arg any, dest ...any) error {
	rows, err := d.query(ctx, q, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return err
		}
		return sql.ErrNoRows
	}
	if err := rows.Scan(dest...); err != nil {
		return err
	}
	return rows.Close()
}

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

package legacy

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/jmoiron/sqlx"
)

// requiredTables are the tables every legacy index has had since opm's
// first schema (level -1); without them a file is not a legacy index.
var requiredTables = []string{"operatorbundle", "package", "channel", "channel_entry"}

// schemaInfo is what the file actually holds: tables and their columns.
// The reader trusts this rather than the recorded level, because DBs have
// been hand-edited and half-migrated in the wild.
type schemaInfo struct {
	tables map[string]map[string]bool
}

func (s schemaInfo) has(table string) bool { return s.tables[table] != nil }

func (s schemaInfo) col(table, column string) bool { return s.tables[table][column] }

// sqliteURI builds the read-only, immutable URI for path. The path is
// percent-escaped as a URI path so names holding '?', '#', '%' or spaces
// open the right file. immutable=1 makes sqlite skip locking and the
// journal entirely, so the file's bytes never change; query_only refuses
// any write statement on top of that. pageCacheKiB, if not 0, is each
// connection's page cache (PageCache).
func sqliteURI(absPath string, pageCacheKiB int) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(absPath)}
	// url.URL with an absolute path yields file:///abs; sqlite accepts an
	// empty authority.
	uri := u.String() + "?mode=ro&immutable=1&_pragma=query_only(1)"
	if pageCacheKiB > 0 {
		uri += fmt.Sprintf("&_pragma=cache_size(-%d)", pageCacheKiB)
	}
	return uri
}

// checkHeader refuses files that start like sqlite but are shorter than
// their header says (truncated copies), with an error naming the file.
func checkHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	size := st.Size()
	hdr := make([]byte, 100)
	if n, _ := f.ReadAt(hdr, 0); n < 100 {
		return fmt.Errorf("open %s: truncated sqlite file: %d bytes, shorter than the 100-byte header", path, size)
	}
	pageSize := int64(binary.BigEndian.Uint16(hdr[16:18]))
	if pageSize == 1 {
		pageSize = 65536
	}
	if pageSize < 512 || pageSize&(pageSize-1) != 0 {
		return fmt.Errorf("open %s: corrupt sqlite header: invalid page size %d", path, pageSize)
	}
	// The in-header page count is valid only when the version-valid-for
	// number equals the change counter (sqlite file format §1.3.7).
	if binary.BigEndian.Uint32(hdr[92:96]) == binary.BigEndian.Uint32(hdr[24:28]) {
		pages := int64(binary.BigEndian.Uint32(hdr[28:32]))
		if want := pages * pageSize; pages > 0 && size < want {
			return fmt.Errorf("open %s: truncated sqlite file: %d bytes, header says %d pages of %d bytes (%d bytes)", path, size, pages, pageSize, want)
		}
	}
	if size%pageSize != 0 {
		return fmt.Errorf("open %s: truncated sqlite file: %d bytes is not a whole number of %d-byte pages", path, size, pageSize)
	}
	return nil
}

// checkSidecars refuses a database with a non-empty write-ahead log or
// rollback journal beside it: an immutable open ignores both, so it would
// read changes half-applied (hot journal) or miss committed ones (WAL).
// sqlite itself resolves them on the next read/write open, which this
// reader never does because it must not write.
func checkSidecars(path string) error {
	for _, sc := range []struct{ suffix, what string }{
		{"-wal", "a write-ahead log with changes not yet in the database file"},
		{"-journal", "a rollback journal left by an interrupted write"},
	} {
		st, err := os.Stat(path + sc.suffix)
		if err != nil || st.Size() == 0 {
			continue
		}
		return fmt.Errorf("%s holds %s; a read-only open would not see a consistent database: copy both files elsewhere, let sqlite recover the copy (sqlite3 <copy> 'PRAGMA integrity_check') and read the copy",
			filepath.Base(path+sc.suffix), sc.what)
	}
	return nil
}

// readSchema lists tables and their columns.
func readSchema(ctx context.Context, db *sqlx.DB) (schemaInfo, error) {
	var names []string
	if err := db.SelectContext(ctx, &names, `SELECT name FROM sqlite_master WHERE type = 'table'`); err != nil {
		return schemaInfo{}, fmt.Errorf("list tables: %w", err)
	}
	s := schemaInfo{tables: map[string]map[string]bool{}}
	for _, n := range names {
		var cols []string
		if err := db.SelectContext(ctx, &cols, `SELECT name FROM pragma_table_info(?)`, n); err != nil {
			return schemaInfo{}, fmt.Errorf("columns of table %s: %w", n, err)
		}
		m := make(map[string]bool, len(cols))
		for _, c := range cols {
			m[strings.ToLower(c)] = true
		}
		s.tables[strings.ToLower(n)] = m
	}
	return s, nil
}

// missingTables names the required tables the schema lacks, sorted.
func (s schemaInfo) missingTables() []string {
	var out []string
	for _, t := range requiredTables {
		if !s.has(t) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// readLevel reads schema_migrations.version; -1 when the table is missing
// or empty.
func readLevel(ctx context.Context, db *sqlx.DB, s schemaInfo) (int, error) {
	if !s.has("schema_migrations") || !s.col("schema_migrations", "version") {
		return -1, nil
	}
	var v []int64
	if err := db.SelectContext(ctx, &v, `SELECT version FROM schema_migrations LIMIT 1`); err != nil {
		return 0, fmt.Errorf("read schema_migrations: %w", err)
	}
	if len(v) == 0 {
		return -1, nil
	}
	return int(v[0]), nil
}

// colOr selects column c of table t when it exists, else NULL, always
// aliased to c so scans do not depend on the level.
func (s schemaInfo) colOr(t, c string) string {
	if s.col(t, c) {
		return c
	}
	return "NULL AS " + c
}

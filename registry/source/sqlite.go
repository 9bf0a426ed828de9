//go:build !slim

package source

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/registry"

	"github.com/operator-catalog/olmcat/legacy"
	"github.com/operator-catalog/olmcat/registry/legacyquery"
)

// openSQLite serves a legacy index read-only, its manifests read per call.
func openSQLite(ctx context.Context, path string, o options) (registry.Querier, error) {
	if o.cacheDir != "" {
		o.logger.Info("cache directory not used for sqlite catalogs", "path", path)
	}
	db, err := legacy.Open(ctx, path, legacy.Lazy(), legacy.SkipManifests())
	if err != nil {
		return nil, err // "open <path>: ...": it names the file
	}
	q, err := legacyquery.New(ctx, db)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("index sqlite catalog %s: %w", path, err)
	}
	o.logger.Info("opened sqlite catalog", "path", path, "level", db.Level())
	return q, nil
}

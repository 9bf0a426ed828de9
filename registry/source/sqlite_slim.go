//go:build slim

package source

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/registry"
)

// openSQLite of the slim build, which links no sqlite library: the
// catalog is refused with ErrNoSQLite.
func openSQLite(_ context.Context, path string, _ options) (registry.Querier, error) {
	return nil, fmt.Errorf("open catalog %s: %w", path, ErrNoSQLite)
}

//go:build slim

package serve

import (
	"context"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
	"github.com/operator-catalog/olmcat/registry/source"
)

// sqliteSource refuses a legacy index: the slim build links no sqlite
// (its OnSQLite refuses one before anything is served).
func sqliteSource(string) catalogdhttp.Source {
	return func(context.Context, catalogdhttp.Emit) error { return source.ErrNoSQLite }
}

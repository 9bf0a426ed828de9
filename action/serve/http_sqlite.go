//go:build !slim

package serve

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// sqliteSource is the Source of a legacy sqlite index: the blobs of its
// lossless conversion (what olmcat migrate writes), package by package
// in package order, each package's blobs in the order they are written.
// That is the order catalogd walks the migrated directory in (one
// directory per package, names sorted bytewise), and only one package
// is held at a time.
func sqliteSource(db string) catalogdhttp.Source {
	return func(ctx context.Context, emit catalogdhttp.Emit) error {
		var buf bytes.Buffer
		_, err := migrate.Each(ctx, db, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
			buf.Reset()
			if err := declcfg.WriteStream(&buf, cfg, declcfg.FormatJSON); err != nil {
				return err
			}
			where := "the migration of package " + pkg
			return declcfg.DecodeStream(&buf, func(blob json.RawMessage, i int) error { return emit(blob, where, i) })
		})
		return err
	}
}

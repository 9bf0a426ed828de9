//go:build slim

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/registry/source"
)

// serveSQLite refuses a legacy index in the slim build (no sqlite
// backend) before the port is bound, saying what serves it.
func serveSQLite(_ context.Context, _ io.Writer, name, _, imgArgs string, _ bool) error {
	return &exitError{code: exitInvalid, err: fmt.Errorf("serve %s: %w: serve it with the full olmcat, or migrate it to a declarative config (%s) and serve that",
		name, source.ErrNoSQLite, migrateCommand(name, imgArgs))}
}

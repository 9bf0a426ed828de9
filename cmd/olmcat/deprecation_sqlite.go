//go:build !slim

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/legacy"
)

// warnDeprecated writes deprecationWarning(name, imgArgs) to w once path is known
// to be a legacy index (legacy.CheckIndex), unless the
// noDeprecationWarningEnv environment variable silences it. A file that
// only looks like one (an empty file, another program's sqlite database)
// gets no warning: opening it fails with an error that says what it is.
// name is the input as the user gave it (an image reference for an
// image's database), path the local file.
func warnDeprecated(ctx context.Context, w io.Writer, name, path, imgArgs string) {
	if silencedByEnv() || legacy.CheckIndex(ctx, path) != nil {
		return
	}
	fmt.Fprint(w, deprecationWarning(name, imgArgs))
}

// serveSQLite prepares serving a legacy index: the deprecation warning,
// unless silenced.
func serveSQLite(ctx context.Context, w io.Writer, name, path, imgArgs string, silenced bool) error {
	if !silenced {
		warnDeprecated(ctx, w, name, path, imgArgs)
	}
	return nil
}

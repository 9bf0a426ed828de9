//go:build !slim

package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// What the commands reading catalogs as render does share: how they tell
// what they find of legacy sqlite indexes, and how a bundle given where
// a catalog is wanted is refused.

// legacyHooks tell on stderr what the actions of command verb find of
// legacy sqlite indexes: the deprecation warning unless silenced (warn
// false), suggesting commands with imgArgs (the image flags in use), and
// the summary of each conversion, the remedies of its hints named.
func legacyHooks(stderr io.Writer, verb, imgArgs string, warn bool) action.Legacy {
	l := action.Legacy{Converted: func(ref string, rep *migrate.Report, err error) {
		report.NameRemedies(rep, err)
		report.WriteConversionSummary(stderr, verb, ref, rep)
	}}
	if warn {
		l.Deprecated = func(ctx context.Context, ref, path string) { warnDeprecated(ctx, stderr, ref, path, imgArgs) }
	}
	return l
}

// conversionHooks tell on stderr the summary of each conversion of a
// legacy sqlite index cmd reads, and no deprecation warning: the
// sqlite-era commands print their own notice, and the others read
// sqlite without one.
func conversionHooks(cmd *cobra.Command) action.Legacy {
	verb := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	return legacyHooks(cmd.ErrOrStderr(), verb, "", false)
}

// refuseBundleError is the error of a command (verb) that needs a
// catalog when given the bundle be names: refuseBundle for an image, and
// alike for a bundle directory.
func refuseBundleError(be *input.BundleError, verb string) error {
	if be.Image {
		return refuseBundle(be.Ref, verb)
	}
	return &exitError{code: exitInvalid, err: fmt.Errorf("%s %s: this is a bundle directory (manifests/ and metadata/), not a catalog; olmcat render %s prints its olm.bundle blob",
		verb, be.Ref, be.Ref)}
}

package indexop

import (
	"fmt"
	"strings"
)

// Mode is a graph update mode of opm's --mode flag.
type Mode string

// The graph update modes.
const (
	// ModeReplaces recomputes the package's channels from the CSVs'
	// replaces and skips, each channel headed by its highest version.
	ModeReplaces Mode = "replaces"
	// ModeSemver inserts each bundle by version into the channels of its
	// annotations; the CSVs' replaces and skips play no role.
	ModeSemver Mode = "semver"
	// ModeSemverSkipPatch is ModeSemver where a bundle also skips the
	// lower patch versions of its minor version.
	ModeSemverSkipPatch Mode = "semver-skippatch"
)

// ParseMode parses a --mode value, case-insensitively as opm did.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(s)); m {
	case ModeReplaces, ModeSemver, ModeSemverSkipPatch:
		return m, nil
	}
	//lint:ignore ST1005 opm v1.73's message, capital letter included
	return "", fmt.Errorf("Invalid channel update mode %s specified (want %s, %s or %s)", s, ModeReplaces, ModeSemver, ModeSemverSkipPatch)
}

// Option configures Add.
type Option func(*options)

type options struct {
	mode            Mode
	overwriteLatest bool
	enableAlpha     bool
}

// WithMode selects the graph update mode (default ModeReplaces).
func WithMode(m Mode) Option { return func(o *options) { o.mode = m } }

// WithOverwriteLatest lets a bundle replace the bundle of the same name
// when that one heads every channel it is in (opm's hidden
// --overwrite-latest; replaces mode only).
func WithOverwriteLatest(b bool) Option { return func(o *options) { o.overwriteLatest = b } }

// WithEnableAlpha accepts bundles whose CSV carries olm.substitutesFor
// and, in replaces mode, applies the substitutions as opm's
// --enable-alpha did; without it they are refused as opm refused them.
func WithEnableAlpha(b bool) Option { return func(o *options) { o.enableAlpha = b } }

func newOptions(opts []Option) options {
	o := options{mode: ModeReplaces}
	for _, f := range opts {
		f(&o)
	}
	return o
}

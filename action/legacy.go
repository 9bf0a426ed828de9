package action

import (
	"context"

	"github.com/operator-catalog/olmcat/migrate"
)

// Legacy is what a verb reading a legacy sqlite index tells its caller
// of it, as it happens; a nil function tells nothing. Both are the
// caller's to word: the deprecation warning suggests the caller's own
// commands, and the summary of a conversion names its flags.
type Legacy struct {
	// Deprecated is called before the file path, which ref (as the
	// caller gave it) names or holds, is read as a sqlite index.
	Deprecated func(ctx context.Context, ref, path string)
	// Converted gets the report of converting ref (nil if it failed
	// before converting anything) and the conversion's error (nil on
	// success) before the verb returns it, wrapped in context: the caller
	// may name the remedies of the hints of both in place.
	Converted func(ref string, rep *migrate.Report, err error)
}

// deprecated calls l.Deprecated, if set.
func (l Legacy) deprecated(ctx context.Context, ref, path string) {
	if l.Deprecated != nil {
		l.Deprecated(ctx, ref, path)
	}
}

// converted calls l.Converted, if set.
func (l Legacy) converted(ref string, rep *migrate.Report, err error) {
	if l.Converted != nil {
		l.Converted(ref, rep, err)
	}
}

// Package pathcheck keeps what olmcat writes apart from what it reads: an
// output directory, a report file or a cache directory may not be, contain
// or lie inside any input, compared after resolving symlinks. Every
// command that writes uses this one check, before it writes anything.
package pathcheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrOverlap is wrapped by every error of Separate and Outside: writing
// the path given would replace, delete or add to something that must stay.
var ErrOverlap = errors.New("overlaps")

// Separate returns an error wrapping ErrOverlap when the path written
// (what names it, e.g. "output directory" or "report file") is an input,
// holds one or lies inside one, symlinks resolved. Empty inputs are
// ignored.
func Separate(what, written string, inputs ...string) error {
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if err := Outside(what, written, "input", in); err != nil {
			return err
		}
	}
	return nil
}

// Outside is Separate for one path that is not an input but must not be
// touched either (e.g. a report file and the output directory a migration
// replaces): it errs, wrapping ErrOverlap, when written is other, holds it
// or lies inside it. otherWhat names other in the message.
func Outside(what, written, otherWhat, other string) error {
	w, err := Resolve(written)
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, written, err)
	}
	o, err := Resolve(other)
	if err != nil {
		return fmt.Errorf("%s %s: %w", otherWhat, other, err)
	}
	if Within(w, o) || Within(o, w) {
		return fmt.Errorf("%s %s %w %s %s: writing it would change or delete the %s", what, written, ErrOverlap, otherWhat, other, otherWhat)
	}
	return nil
}

// Within says whether the cleaned absolute path child is parent or lies
// inside it.
func Within(child, parent string) bool {
	if child == parent {
		return true
	}
	if !strings.HasSuffix(parent, string(filepath.Separator)) {
		parent += string(filepath.Separator)
	}
	return strings.HasPrefix(child, parent)
}

// Resolve returns p as an absolute path with symlinks resolved as far as
// the path exists (a path that does not exist yet resolves through its
// nearest existing ancestor).
func Resolve(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	var rest []string
	for cur := abs; ; cur = filepath.Dir(cur) {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(append([]string{real}, rest...)...), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
		if filepath.Dir(cur) == cur {
			return abs, nil
		}
		rest = append([]string{filepath.Base(cur)}, rest...)
	}
}

// ErrExists is matched (errors.Is) by the errors of Exists: an output
// that is already there is only replaced on request (the CLI's --force,
// which the CLI names), which makes it a usage error like an overlap.
var ErrExists = errors.New("exists")

// existsError is an ErrExists with its own message.
type existsError struct{ msg string }

func (e *existsError) Error() string        { return e.msg }
func (e *existsError) Is(target error) bool { return target == ErrExists }

// Exists returns an error matching ErrExists with the message format and
// args give; the caller that knows how replacing is asked for says so.
func Exists(format string, args ...any) error {
	return &existsError{msg: fmt.Sprintf(format, args...)}
}

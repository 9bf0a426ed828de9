package action

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
)

// indexSource is the catalog an index or registry verb starts from: a
// legacy sqlite index (file or image) read through migrate, a
// declarative config (directory or image), or nothing.
type indexSource struct {
	name   string       // as the caller gave it
	local  *input.Input // nil for none
	legacy Legacy
	// converted: legacy was told of a conversion, which it is only once
	// (deprecatetruncate reads its source twice).
	converted bool
}

// openIndex opens ref ("" for none), to tell legacy of the conversion of
// a sqlite index. missingOK treats a file that does not exist as an
// empty catalog (opm's registry add created it).
func openIndex(ctx context.Context, env Env, legacy Legacy, ref string, missingOK bool) (*indexSource, error) {
	s := &indexSource{name: ref, legacy: legacy}
	if ref == "" {
		return s, nil
	}
	if _, err := os.Stat(ref); missingOK && errors.Is(err, os.ErrNotExist) {
		env.logf("note: %s does not exist: starting from an empty catalog", ref)
		s.name = ""
		return s, nil
	}
	in, err := env.resolve(ctx, ref, input.Catalog, false, input.PreferSQLite())
	if err != nil {
		return nil, err
	}
	if in.Kind != input.KindSQLite && in.Kind != input.KindDeclcfg {
		_ = in.Close()
		return nil, fmt.Errorf("%s is neither a legacy sqlite index nor a declarative config directory", ref)
	}
	return sourceOf(ctx, legacy, ref, in), nil
}

// sourceOf is the indexSource of in (a sqlite index or a declarative
// config directory, resolved from ref), Legacy told of a sqlite index
// before it is read.
func sourceOf(ctx context.Context, legacy Legacy, ref string, in *input.Input) *indexSource {
	if in.Kind == input.KindSQLite {
		legacy.deprecated(ctx, ref, in.Path)
	}
	return &indexSource{name: ref, local: in, legacy: legacy}
}

// Close removes what an image extraction left.
func (s *indexSource) Close() { _ = s.local.Close() }

// inputs are the local paths outputs must stay clear of.
func (s *indexSource) inputs() []string {
	if s.name == "" || s.local.Image != "" {
		return nil
	}
	return []string{s.local.Path}
}

// each is the indexop.Source of the catalog: fn gets the blobs of every
// package, one at a time, in name order ("" for blobs of no package,
// last); a sqlite index's packages that unread names (unread may be nil)
// are not read, and fn gets nil blobs for them. The conversion of a
// sqlite index is told to the Legacy hooks the first time.
//
// An error of fn (writing the output, say) is returned as is: "read
// <input>" would blame the input for it.
func (s *indexSource) each(ctx context.Context, unread func(pkg string) bool, fn func(pkg string, cfg *declcfg.DeclarativeConfig) error) error {
	var fnErr error
	inner := fn
	fn = func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		fnErr = inner(pkg, cfg)
		return fnErr
	}
	err := s.eachPackage(ctx, unread, fn)
	if fnErr != nil && errors.Is(err, fnErr) {
		return fnErr
	}
	return err
}

// eachPackage is each without telling fn's errors apart.
func (s *indexSource) eachPackage(ctx context.Context, unread func(pkg string) bool, fn func(pkg string, cfg *declcfg.DeclarativeConfig) error) error {
	switch {
	case s.name == "":
		return nil
	case s.local.Kind == input.KindSQLite:
		rep, err := migrate.Each(ctx, s.local.Path, fn, migrate.WithUnread(unread))
		if !s.converted {
			s.converted = true
			s.legacy.converted(s.name, rep, err)
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", s.name, err)
		}
		return nil
	default:
		if err := declcfg.EachPackage(ctx, s.local.Path, fn); err != nil {
			return fmt.Errorf("read %s: %w", s.name, err)
		}
		return nil
	}
}

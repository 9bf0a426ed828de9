package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/input"
)

// Validate checks every blob of a declarative config catalog and the
// upgrade graph of every channel, finding every problem in one run.
type Validate struct {
	Env
	// Catalog is a declarative config directory or file, or an image of
	// declarative configs (pulled and extracted).
	Catalog string
	// Report, if set, is called once Catalog is resolved, before
	// anything is checked (image: Catalog is an image, whose files are
	// not the user's), and returns what receives the checks as they go.
	Report func(image bool) ValidateReport
}

// ValidateReport receives a validation as it goes: each upgrade-graph
// warning (which does not make the catalog invalid) and each package
// once checked.
type ValidateReport interface {
	Warning(p model.Problem)
	Package(pc model.PackageCheck)
}

// ValidateResult is the outcome of a validation: the catalog's counts
// and, for an invalid catalog, why (a *model.ValidationError listing
// every problem, or the error that stopped reading the catalog).
type ValidateResult struct {
	model.DirValidation
	Invalid error
}

// Run resolves Catalog and checks it. Its error says that nothing could
// be checked (no such catalog, a sqlite index, an image that could not
// be pulled); an invalid catalog is a result.
func (v Validate) Run(ctx context.Context) (ValidateResult, error) {
	in, err := v.open(ctx)
	if err != nil {
		return ValidateResult{}, err
	}
	defer in.Close()
	var opts []model.DirOption
	if v.Report != nil {
		rep := v.Report(in.Image != "")
		opts = append(opts, model.WithWarnings(rep.Warning), model.WithPackageChecks(rep.Package))
	}
	res, err := model.ValidateDir(ctx, in.Path, opts...)
	return ValidateResult{DirValidation: res, Invalid: err}, nil
}

// open resolves Catalog: a local path as it is (reading it tells what
// is wrong with it), or the declarative configs of a catalog image. A
// sqlite index, local or in an image, is refused: it is to be migrated
// first.
func (v Validate) open(ctx context.Context) (*input.Input, error) {
	arg := v.Catalog
	in, err := input.Resolve(ctx, arg, input.Catalog, v.pull(false))
	switch {
	case pulled(err):
		return nil, err
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s does not exist", arg)
	case err != nil:
		return &input.Input{Ref: arg, Path: arg}, nil
	case in.Image == "" && in.Kind == input.KindSQLite:
		return nil, &SQLiteError{Ref: arg}
	case in.Image == "":
		for _, s := range in.Finished {
			v.log(s)
		}
		return &input.Input{Ref: arg, Path: arg}, nil
	case in.Kind != input.KindDeclcfg:
		in.Close()
		return nil, &SQLiteError{Ref: arg, Image: true}
	}
	return in, nil
}

// SQLiteError is the error of reading a sqlite index (Image: an image
// holding one) where declarative configs are wanted: the caller words
// how to migrate it first.
type SQLiteError struct {
	Ref   string
	Image bool
}

func (e *SQLiteError) Error() string {
	if e.Image {
		return fmt.Sprintf("validate %s: the image holds a sqlite database, not declarative configs", e.Ref)
	}
	return fmt.Sprintf("%s is a legacy sqlite index, not a declarative config", e.Ref)
}

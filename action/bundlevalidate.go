package action

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/bundle/bundlecheck"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/atomicfile"
)

// BundleValidate is opm alpha bundle validate, and with Out opm alpha
// bundle unpack: the bundle image Image pulled without a daemon,
// validated as opm validates it (package bundlecheck: the format, then
// the content; each warning told through Env.Log), and then its whole
// content (manifests/, metadata/) copied into Out.
type BundleValidate struct {
	Env Env
	// Image is the bundle image; a local path is refused.
	Image string
	// Optional are the optional validators run beside the default ones.
	Optional []bundlecheck.Optional
	// SkipValidation copies the content without validating it.
	SkipValidation bool
	// Out, if set, is the directory the content is copied into (made if
	// missing; files of the same names are replaced).
	Out string
}

// BundleValidateResult is what a BundleValidate did (nothing to tell
// yet beyond its error).
type BundleValidateResult struct{}

// InvalidBundleError is a bundle that failed validation: Err lists the
// problems of Stage, the first stage that found any.
type InvalidBundleError struct {
	Stage bundlecheck.Stage
	Err   error
}

func (e *InvalidBundleError) Error() string { return e.Err.Error() }
func (e *InvalidBundleError) Unwrap() error { return e.Err }

// Run pulls, validates and copies the bundle.
func (v BundleValidate) Run(ctx context.Context) (BundleValidateResult, error) {
	b, err := v.pull(ctx)
	if err != nil {
		return BundleValidateResult{}, err
	}
	defer b.Close()
	if !v.SkipValidation {
		if err := v.validate(b.Path); err != nil {
			return BundleValidateResult{}, err
		}
	}
	if v.Out == "" {
		return BundleValidateResult{}, nil
	}
	if err := os.MkdirAll(v.Out, 0o755); err != nil {
		return BundleValidateResult{}, err
	}
	return BundleValidateResult{}, atomicfile.CopyTree(b.Path, v.Out, true, atomicfile.OnSwept(func(dir string) { v.Env.log(AbandonedNote(dir)) }))
}

// pull pulls Image and checks that it is a bundle's; the caller closes
// the result, whose Path holds manifests/ and metadata/.
func (v BundleValidate) pull(ctx context.Context) (*input.Input, error) {
	in, err := input.Classify(v.Image)
	if err != nil {
		return nil, err
	}
	if in.Kind != input.KindImage {
		return nil, fmt.Errorf("%s is not an image reference", v.Image)
	}
	b, err := v.Env.resolve(ctx, v.Image, input.Bundle, false)
	var nb *input.NotBundleError
	if errors.As(err, &nb) {
		return nil, fmt.Errorf("%s is not a bundle image (no %s label)", v.Image, annotation.Package)
	}
	return b, err
}

// validate runs opm's bundle validation on the unpacked bundle in dir,
// telling its warnings. The image's files are read through an os.Root:
// a symlink in the image cannot make validation read outside it.
func (v BundleValidate) validate(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	r := bundlecheck.Validate(root.FS(), bundlecheck.WithOptional(v.Optional...))
	for _, p := range r.Warnings {
		v.Env.logf("warning: %s: %s", p.File, p.Message)
	}
	if err := r.Err(); err != nil {
		return &InvalidBundleError{Stage: r.Stage(), Err: err}
	}
	return nil
}

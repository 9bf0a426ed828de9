package input

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/image"
)

// Input is a resolved argument: what it names and, for everything but a
// live server, the local path to read.
type Input struct {
	// Ref is the argument as given.
	Ref string
	// Kind is what Ref names: for an image, what the image holds
	// (KindDeclcfg, KindDeclcfgFile or KindSQLite for a catalog image,
	// KindBundle for a bundle image), KindImage only from Classify.
	Kind Kind
	// Path is what to open: Ref itself for a local input or a live server
	// (grpc://host:port); for an image, its extracted catalog (the configs
	// directory or the database file) or, for a bundle image, the
	// directory holding its manifests/ and metadata/. Empty for KindImage,
	// and for a bundle image extracted into memory (FS).
	Path string
	// FS, set only for a bundle image extracted into memory
	// (image.WithBundleInMemory among the image options), holds its
	// manifests/ and metadata/ in place of Path.
	FS fs.FS
	// Addr is host:port for KindGRPC, the base URL for KindCatalogd,
	// empty otherwise.
	Addr string
	// Image is the image reference (Ref without any docker:// prefix)
	// when Ref names an image, empty for a local input.
	Image string
	// Note explains the choice when Ref reads as both a local path and an
	// image reference (the path wins); callers print it.
	Note string
	// Finished says, one sentence each, what was finished of a write of
	// Ref that a killed run had committed, so that Ref is read whole;
	// callers print them.
	Finished []string

	ref       reference        // Ref read as an image reference, if it is one
	extracted *image.Extracted // what Resolve pulled, removed by Close
}

// Close removes what Resolve extracted from an image. It is safe on a nil
// Input and on local inputs (nothing to remove).
func (in *Input) Close() error {
	if in == nil || in.extracted == nil {
		return nil
	}
	return in.extracted.Close()
}

// Option configures Resolve.
type Option func(*options)

type options struct {
	imageOptions func(ref string) ([]image.Option, error)
	preferSQLite bool
	asImage      bool
}

// WithImageOptions gives the options an image is pulled with (auth, TLS,
// mirrors, cache, limits, progress), asked for only when ref names an
// image (ref is the reference pulled): options that cannot be made for an
// input that needs none are no error. An error of fn is returned as it
// is. Without it images are pulled with package image's defaults.
func WithImageOptions(fn func(ref string) ([]image.Option, error)) Option {
	return func(o *options) { o.imageOptions = fn }
}

// PreferSQLite reads an image carrying both a database and a configs
// label as its sqlite database (image.WithPreferSQLite: what migrate and
// opm's index commands read) unless the image options choose a source.
func PreferSQLite() Option { return func(o *options) { o.preferSQLite = true } }

// AsImage reads ref as an image reference, as it is, without telling it
// from a local path: a bundle's image field is never a local path.
func AsImage() Option { return func(o *options) { o.asImage = true } }

// BundleError is Resolve's error for a bundle where only a catalog is
// wanted. Callers word it: the commands name the command to run instead.
type BundleError struct {
	// Ref is the bundle image pulled (Image) or the bundle directory.
	Ref string
	// Image tells a bundle image (label annotation.Package) from a
	// bundle directory (manifests/ and metadata/).
	Image bool
}

func (e *BundleError) Error() string {
	if e.Image {
		return fmt.Sprintf("%s: a bundle image (label %s), not a catalog", e.Ref, annotation.Package)
	}
	return fmt.Sprintf("%s: a bundle directory (manifests/ and metadata/), not a catalog", e.Ref)
}

// NotBundleError is Resolve's error for anything but a bundle where only a
// bundle is wanted.
type NotBundleError struct {
	// Ref is the argument as given.
	Ref string
	// Kind is what it names.
	Kind Kind
	// Image tells an image (a catalog image) from a local input.
	Image bool
	// Catalog is the kind of catalog a catalog image's label names,
	// "configs" or "sqlite"; empty for local inputs.
	Catalog string
}

func (e *NotBundleError) Error() string {
	if e.Image {
		return fmt.Sprintf("%s is a %s catalog image, not a bundle image", e.Ref, e.Catalog)
	}
	return fmt.Sprintf("%s is a %s, not a bundle image or bundle directory", e.Ref, e.Kind)
}

// PullError is Resolve's error for an image that could not be pulled,
// extracted or read once extracted. Its text is the underlying error's.
type PullError struct {
	// Image is the reference pulled.
	Image string
	// Err is what failed (an *image.LimitError, image.ErrPlainHTTP, ...).
	Err error
}

func (e *PullError) Error() string { return e.Err.Error() }
func (e *PullError) Unwrap() error { return e.Err }

// Resolve tells what ref names (Classify) and makes it local: an image is
// pulled and only its catalog, or a bundle's manifests/ and metadata/, is
// extracted into a temporary directory the caller removes with Close (on
// error nothing is left). want says what the caller accepts: a bundle
// where only a catalog is wanted is a *BundleError, anything but a bundle
// where only a bundle is wanted a *NotBundleError, a failed pull a
// *PullError. The errors of telling what ref is are Classify's, for the
// caller to word.
func Resolve(ctx context.Context, ref string, want Want, opts ...Option) (*Input, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	var in *Input
	if o.asImage {
		in = &Input{Ref: ref, Kind: KindImage, Image: ref}
	} else {
		var err error
		if in, err = Classify(ref); err != nil {
			return nil, err
		}
	}
	if in.Kind == KindImage {
		return pull(ctx, in, want, o)
	}
	if in.Kind == KindDeclcfg && want&Bundle != 0 && isBundleDir(in.Path) {
		in.Kind = KindBundle
	}
	if want == Bundle && in.Kind != KindBundle {
		return nil, &NotBundleError{Ref: ref, Kind: in.Kind}
	}
	return in, nil
}

// pull extracts the catalog or bundle of the image in names and tells
// what it holds.
func pull(ctx context.Context, in *Input, want Want, o options) (*Input, error) {
	var iopts []image.Option
	if o.imageOptions != nil {
		var err error
		if iopts, err = o.imageOptions(in.Image); err != nil {
			return nil, err
		}
	}
	iopts = append(iopts, image.WithPreferSQLite(o.preferSQLite))
	u, err := image.ExtractCatalog(ctx, in.Image, iopts...)
	if err != nil {
		return nil, &PullError{Image: in.Image, Err: err}
	}
	in.extracted = u
	switch {
	case u.Kind == image.KindBundle && want&Bundle == 0:
		in.Close()
		return nil, &BundleError{Ref: u.Pulled.Ref, Image: true}
	case u.Kind == image.KindBundle:
		in.Kind, in.Path, in.FS = KindBundle, u.Root, u.FS
		return in, nil
	case want == Bundle:
		in.Close()
		return nil, &NotBundleError{Ref: in.Ref, Kind: KindImage, Image: true, Catalog: string(u.Kind)}
	}
	local, err := classifyLocal(u.Local)
	if err != nil {
		in.Close()
		return nil, &PullError{Image: in.Image, Err: fmt.Errorf("image %s: %w", in.Image, err)}
	}
	in.Kind, in.Path = local.Kind, local.Path
	return in, nil
}

package action

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// Build makes a catalog image of a valid declarative config directory
// without a container daemon, and pushes it (or writes it as an OCI
// image layout): by default an image serving itself with olmcat's
// static binary and a pre-built serve cache, one per platform in an
// index; with BaseImage, the configs on an opm image. The same input
// gives the same digest.
type Build struct {
	Env
	// Dir is the catalog directory, Ref the image reference pushed (or
	// naming the image in the layout).
	Dir, Ref string
	// Platforms are the platforms built, each needing a binary.
	Platforms []v1.Platform
	// Binaries are olmcat's static binaries, by platform (a later one
	// replaces an earlier one of the same platform).
	Binaries []Binary
	// BaseImage, if set, is the opm image the configs are put on.
	BaseImage    string
	NoServeCache bool
	// Created is the time of every file and of the image (zero: the
	// Unix epoch).
	Created time.Time
	// OCILayout, if set, is the directory the image is written to
	// instead of pushed; Force replaces a layout there.
	OCILayout string
	Force     bool
}

// Binary is olmcat's binary File for a platform.
type Binary struct {
	Platform v1.Platform
	File     string
}

// BuildResult is what was built: Name@Digest, with a pre-built serve
// cache or not.
type BuildResult struct {
	Name, Digest string
	ServeCache   bool
}

// Run checks the output and the reference, reads and validates Dir,
// builds the image and pushes or writes it.
func (b Build) Run(ctx context.Context) (BuildResult, error) {
	release, regOpts, err := b.prepare(ctx)
	if err != nil {
		return BuildResult{}, err
	}
	defer release()
	opts := append(b.options(), image.WithBuildNotes(b.log))
	if !b.NoServeCache {
		opts = append(opts, image.WithServeCache(declcfgquery.PrebuildCache))
	}
	if b.BaseImage != "" {
		opts = append(opts, image.WithBaseImage(b.BaseImage, regOpts...))
	}
	cfg, err := declcfg.LoadDir(ctx, b.Dir)
	if err == nil {
		_, err = model.FromDeclcfg(cfg)
	}
	if err != nil {
		return BuildResult{}, fmt.Errorf("build: %s is not a valid catalog: %w", b.Dir, err)
	}
	built, err := image.Build(ctx, b.Dir, opts...)
	if err != nil {
		return BuildResult{}, err
	}
	defer built.Close()
	res := BuildResult{ServeCache: built.ServeCache}
	if res.Name, res.Digest, err = b.publish(ctx, built.Index, regOpts); err != nil {
		return BuildResult{}, err
	}
	return res, nil
}

// options are the build options of every image: the platforms, their
// binaries, the time.
func (b Build) options() []image.BuildOption {
	opts := []image.BuildOption{image.WithPlatforms(b.Platforms...)}
	for _, bin := range b.Binaries {
		opts = append(opts, image.WithBinary(bin.Platform, bin.File))
	}
	if !b.Created.IsZero() {
		opts = append(opts, image.WithCreated(b.Created))
	}
	return opts
}

// prepare checks before anything is built: with OCILayout, that it is
// apart from the inputs (Dir, the binaries) and free, holding its lock
// (release drops it); the options of pulls and the push; Ref.
func (b Build) prepare(ctx context.Context) (release func(), regOpts []image.Option, err error) {
	release = func() {}
	if b.OCILayout != "" {
		var inputs []string
		if b.Dir != "" {
			inputs = append(inputs, b.Dir)
		}
		for _, bin := range b.Binaries {
			inputs = append(inputs, bin.File)
		}
		if err := pathcheck.Separate("OCI layout directory", b.OCILayout, inputs...); err != nil {
			return nil, nil, err
		}
		if release, err = b.lock(ctx, b.OCILayout, inputs...); err != nil {
			return nil, nil, err
		}
		if _, err := image.CheckLayoutDir(b.OCILayout, b.Force); err != nil {
			release()
			return nil, nil, layoutError("Build.Force", KindUsage, err)
		}
	}
	if b.ImageOptions != nil {
		if regOpts, err = b.ImageOptions(); err != nil {
			release()
			return nil, nil, err
		}
	}
	if _, err := image.ParseTarget(b.Ref); err != nil {
		release()
		return nil, nil, usage("Build.Ref", err)
	}
	return release, regOpts, nil
}

// publish pushes idx to Ref, or writes it to OCILayout, and returns
// Ref's repository and idx's digest.
func (b Build) publish(ctx context.Context, idx v1.ImageIndex, regOpts []image.Option) (name, digest string, err error) {
	target, err := image.ParseTarget(b.Ref)
	if err != nil {
		return "", "", usage("", err)
	}
	d, err := idx.Digest()
	if err != nil {
		return "", "", err
	}
	if b.OCILayout == "" {
		err = image.Push(ctx, b.Ref, idx, regOpts...)
	} else {
		err = layoutError("Build.Force", KindFailed, image.WriteLayout(b.OCILayout, strings.TrimPrefix(b.Ref, image.ImagePrefix), idx, b.Force, b.log))
	}
	return target.Context().Name(), d.String(), err
}

// layoutError is err, of writing an OCI layout, with option named as
// what replaces a layout that exists, of kind: a usage error when found
// before anything was built, else a failure.
func layoutError(option string, kind Kind, err error) error {
	if errors.Is(err, image.ErrLayoutExists) {
		return &Error{Kind: kind, Option: option, Err: err}
	}
	return err
}

// BuildToolImage makes olmcat's own image (image.BuildTool: a drop-in
// opm image of olmcat's binaries) and pushes or writes it as Build does;
// Dir, BaseImage and NoServeCache are not used.
type BuildToolImage struct{ Build }

// Run checks the output and the reference, builds the image and pushes
// or writes it.
func (t BuildToolImage) Run(ctx context.Context) (BuildResult, error) {
	release, regOpts, err := t.prepare(ctx)
	if err != nil {
		return BuildResult{}, err
	}
	defer release()
	built, err := image.BuildTool(t.options()...)
	if err != nil {
		return BuildResult{}, err
	}
	defer built.Close()
	var res BuildResult
	if res.Name, res.Digest, err = t.publish(ctx, built.Index, regOpts); err != nil {
		return BuildResult{}, err
	}
	return res, nil
}

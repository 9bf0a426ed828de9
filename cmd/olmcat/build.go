//go:build !slim

package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/writelock"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// buildFlags are the flags of olmcat build.
type buildFlags struct {
	platforms    string
	binaries     []string
	baseImage    string
	push         bool
	ociLayout    string
	noServeCache bool
	force        bool
	registry     *imageFlags
	waitLock     *waitLockFlag
}

func newBuildCmd(img *imageFlags) *cobra.Command {
	f := &buildFlags{}
	cmd := &cobra.Command{
		Use:   "build <dir> <image-ref>",
		Short: "Build and push a catalog image without a container daemon",
		Long: `Build makes a catalog image from a declarative config directory and pushes
it (or, with --push=false, writes it as an OCI image layout at --oci-layout).

By default the image serves itself: this tool's static binary is the
entrypoint, running olmcat serve /configs, with a serve cache pre-built
from the configs at /tmp/cache when it is verified to match them (never a
mismatched one). One image per --platform, in an OCI image index. The
binary of each platform comes from --binary os/arch=FILE; the running
binary stands for the host platform. Cross-compile the others with
CGO_ENABLED=0 GOOS=linux GOARCH=<arch> go build ./cmd/olmcat
(make build-images does it for linux/amd64 and linux/arm64).

--base-image puts the configs on an opm image instead, with opm's label,
entrypoint and serve command (without --cache-dir: opm builds its cache at
start, as no opm cache can be made here).

Layers are sorted and every time is fixed (SOURCE_DATE_EPOCH, else the
Unix epoch): the same input gives the same digest. The catalog must pass
validate.`,
		Example: `  olmcat build ./catalog registry.example.com/ns/catalog:v1
  olmcat build ./catalog registry.example.com/ns/catalog:v1 --platform linux/amd64,linux/arm64 \
      --binary linux/arm64=bin/olmcat-linux-arm64
  olmcat build ./catalog registry.example.com/ns/catalog:v1 --push=false --oci-layout ./catalog-oci`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runBuild(cmd, args[0], args[1], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.platforms, "platform", "linux/"+runtime.GOARCH, "comma-separated platforms to build (os/arch[/variant])")
	fl.StringArrayVar(&f.binaries, "binary", nil, "static olmcat binary for a platform, `os/arch=FILE` (repeatable)")
	fl.StringVar(&f.baseImage, "base-image", "", "put the configs on this opm image instead of a self-serving image")
	fl.BoolVar(&f.push, "push", true, "push the image; false writes an OCI layout at --oci-layout")
	fl.StringVar(&f.ociLayout, "oci-layout", "", "with --push=false, the OCI image layout `DIR` to write (must not exist or be empty, unless --force)")
	fl.BoolVar(&f.force, "force", false, "with --oci-layout, replace an existing layout")
	f.waitLock = addWaitLockFlag(fl)
	fl.BoolVar(&f.noServeCache, "no-serve-cache", false, "do not ship a pre-built serve cache")
	f.registry = img
	takesImages(cmd, registryFlags)
	return cmd
}

// buildOptions turns the flags into build options.
func (f *buildFlags) buildOptions() ([]image.BuildOption, error) {
	platforms, err := image.ParsePlatforms(f.platforms)
	if err != nil {
		return nil, fmt.Errorf("--platform: %w", err)
	}
	opts := []image.BuildOption{image.WithPlatforms(platforms...)}
	if !f.noServeCache {
		opts = append(opts, image.WithServeCache(declcfgquery.PrebuildCache))
	}
	if exe, err := os.Executable(); err == nil && runtime.GOOS == "linux" {
		opts = append(opts, image.WithBinary(v1.Platform{OS: "linux", Architecture: runtime.GOARCH}, exe))
	}
	for _, b := range f.binaries {
		p, file, ok := strings.Cut(b, "=")
		if !ok || file == "" {
			return nil, fmt.Errorf("--binary %q: want os/arch=FILE", b)
		}
		pl, err := image.ParsePlatform(p)
		if err != nil {
			return nil, fmt.Errorf("--binary: %w", err)
		}
		opts = append(opts, image.WithBinary(pl, file))
	}
	if v := os.Getenv("SOURCE_DATE_EPOCH"); v != "" {
		sec, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since the epoch", v)
		}
		opts = append(opts, image.WithCreated(time.Unix(sec, 0)))
	}
	if !f.push && f.ociLayout == "" {
		return nil, errors.New("--push=false needs --oci-layout DIR")
	}
	if f.push && f.ociLayout != "" {
		return nil, errors.New("--oci-layout writes a layout instead of pushing: add --push=false")
	}
	if f.force && f.ociLayout == "" {
		return nil, errors.New("--force only applies to --oci-layout")
	}
	return opts, nil
}

func runBuild(cmd *cobra.Command, dir, ref string, f *buildFlags) error {
	opts, regOpts, lock, err := f.prepare(cmd, ref, dir)
	if err != nil {
		return err
	}
	defer lock.Release()
	if f.baseImage != "" {
		opts = append(opts, image.WithBaseImage(f.baseImage, regOpts...))
	}
	cfg, err := declcfg.LoadDir(cmd.Context(), dir)
	if err == nil {
		_, err = model.FromDeclcfg(cfg)
	}
	if err != nil {
		return &exitError{code: exitInvalid, err: fmt.Errorf("build: %s is not a valid catalog: %w", dir, err)}
	}
	opts = append(opts, image.WithBuildNotes(func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), s) }))
	built, err := image.Build(cmd.Context(), dir, opts...)
	if err != nil {
		return &exitError{code: exitInvalid, err: imageError(err)}
	}
	defer built.Close()
	cache := "with a pre-built serve cache"
	if !built.ServeCache {
		cache = "without a serve cache"
	}
	return f.publish(cmd, ref, built.Index, fmt.Sprintf("built %s from %s (%s, %s)", ref, dir, f.platforms, cache), regOpts)
}

// prepare checks the flags and the target ref before anything is built:
// the build options, the registry options of pulls and the push, and
// with --oci-layout the layout's write lock (the caller releases it once
// the layout is written), never into an input (inputs, the binaries).
func (f *buildFlags) prepare(cmd *cobra.Command, ref string, inputs ...string) ([]image.BuildOption, []image.Option, *writelock.Lock, error) {
	opts, err := f.buildOptions()
	if err != nil {
		return nil, nil, nil, usageError(err)
	}
	var lock *writelock.Lock
	if f.ociLayout != "" {
		for _, b := range f.binaries {
			if _, file, ok := strings.Cut(b, "="); ok {
				inputs = append(inputs, file)
			}
		}
		if err := pathcheck.Separate("OCI layout directory", f.ociLayout, inputs...); err != nil {
			return nil, nil, nil, err
		}
		if lock, err = f.waitLock.lock(cmd, f.ociLayout, inputs...); err != nil {
			return nil, nil, nil, err
		}
		if _, err := image.CheckLayoutDir(f.ociLayout, f.force); err != nil {
			lock.Release()
			return nil, nil, nil, layoutError(err)
		}
	}
	regOpts, err := f.registry.options()
	if err == nil {
		_, err = image.ParseTarget(ref)
		if err != nil {
			err = fmt.Errorf("%w (write an OCI layout with --push=false --oci-layout DIR)", err)
		}
	}
	if err != nil {
		lock.Release()
		return nil, nil, nil, usageError(err)
	}
	return opts, regOpts, lock, nil
}

// publish pushes idx to ref (or writes it to the --oci-layout), then says
// done on stderr and prints ref's repository@digest on stdout.
func (f *buildFlags) publish(cmd *cobra.Command, ref string, idx v1.ImageIndex, done string, regOpts []image.Option) error {
	target, err := image.ParseTarget(ref)
	if err != nil {
		return usageError(err)
	}
	digest, err := idx.Digest()
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	if f.push {
		err = image.Push(cmd.Context(), ref, idx, regOpts...)
	} else {
		err = layoutError(image.WriteLayout(f.ociLayout, strings.TrimPrefix(ref, image.ImagePrefix), idx, f.force, func(s string) { fmt.Fprintln(cmd.ErrOrStderr(), s) }))
	}
	if err != nil {
		return &exitError{code: exitInvalid, err: imageError(err)}
	}
	fmt.Fprintln(cmd.ErrOrStderr(), done)
	fmt.Fprintf(cmd.OutOrStdout(), "%s@%s\n", target.Context().Name(), digest)
	return nil
}

// layoutError names --force for an existing layout.
func layoutError(err error) error {
	if errors.Is(err, image.ErrLayoutExists) {
		return usageError(fmt.Errorf("%w (--force replaces it)", err))
	}
	return err
}

//go:build !slim

package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/image"
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

// action is the build the flags ask for: the platforms, the binaries
// (the running one standing for the host platform), the time of
// SOURCE_DATE_EPOCH, and an OCI layout only with --push=false.
func (f *buildFlags) action(dir, ref string) (action.Build, error) {
	b := action.Build{Dir: dir, Ref: ref, BaseImage: f.baseImage, NoServeCache: f.noServeCache, OCILayout: f.ociLayout, Force: f.force}
	var err error
	if b.Platforms, err = image.ParsePlatforms(f.platforms); err != nil {
		return b, fmt.Errorf("--platform: %w", err)
	}
	if exe, err := os.Executable(); err == nil && runtime.GOOS == "linux" {
		b.Binaries = append(b.Binaries, action.Binary{Platform: v1.Platform{OS: "linux", Architecture: runtime.GOARCH}, File: exe})
	}
	for _, bin := range f.binaries {
		p, file, ok := strings.Cut(bin, "=")
		if !ok || file == "" {
			return b, fmt.Errorf("--binary %q: want os/arch=FILE", bin)
		}
		pl, err := image.ParsePlatform(p)
		if err != nil {
			return b, fmt.Errorf("--binary: %w", err)
		}
		b.Binaries = append(b.Binaries, action.Binary{Platform: pl, File: file})
	}
	if b.Created, err = image.SourceDateEpoch(); err != nil {
		return b, err
	}
	switch {
	case !f.push && f.ociLayout == "":
		return b, errors.New("--push=false needs --oci-layout DIR")
	case f.push && f.ociLayout != "":
		return b, errors.New("--oci-layout writes a layout instead of pushing: add --push=false")
	case f.force && f.ociLayout == "":
		return b, errors.New("--force only applies to --oci-layout")
	}
	return b, nil
}

func runBuild(cmd *cobra.Command, dir, ref string, f *buildFlags) error {
	b, err := f.action(dir, ref)
	if err != nil {
		return usageError(err)
	}
	b.Env = actionEnv(cmd, f.registry, f.waitLock)
	res, err := b.Run(cmd.Context())
	if err != nil {
		return actionError(imageError(err), "build")
	}
	cache := "with a pre-built serve cache"
	if !res.ServeCache {
		cache = "without a serve cache"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "built %s from %s (%s, %s)\n", ref, dir, f.platforms, cache)
	fmt.Fprintf(cmd.OutOrStdout(), "%s@%s\n", res.Name, res.Digest)
	return nil
}

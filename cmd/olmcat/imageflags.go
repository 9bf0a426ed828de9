package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/image"
)

// imageFlags are the image flags of the CLI: one set, made by the root
// (newImageFlags) and handed to every command constructor that reads or
// writes images, as crane's root hands its options to every command. Only
// one command runs, so one set of values serves them all; options turns
// them into image options, in this one place, and register is the one
// place they are registered.
type imageFlags struct {
	useHTTP        bool
	skipTLSVerify  bool
	caFile         string
	platform       string
	cacheDir       string
	noCache        bool
	registriesConf string
	source         string
	limits         image.Limits
}

// defaultPlatform is the --platform default, and the platform of the
// commands that have only the registry flags.
const defaultPlatform = "linux/amd64"

// newImageFlags returns the image flags at their defaults.
func newImageFlags() *imageFlags {
	return &imageFlags{platform: defaultPlatform, limits: image.DefaultLimits}
}

// imageFlagSet names the image flags a command has.
type imageFlagSet string

const (
	// registryFlags say how to reach registries: TLS, auth file
	// locations, mirrors, layer cache (commands that push or pull a
	// bundle).
	registryFlags imageFlagSet = "registry"
	// imageInputFlags are the registry flags, --platform and the limits
	// of image inputs (commands that read catalogs from images).
	imageInputFlags imageFlagSet = "input"
	// imageSourceFlags add --source to imageInputFlags, for commands that
	// read one catalog of an image.
	imageSourceFlags imageFlagSet = "source"
)

// imageFlagsAnnotation is the annotation of a command that takes images:
// its imageFlagSet.
const imageFlagsAnnotation = "olmcat/image-flags"

// takesImages declares that cmd has the image flags of set; register
// registers them.
func takesImages(cmd *cobra.Command, set imageFlagSet) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[imageFlagsAnnotation] = string(set)
}

// register registers on every command of the tree under cmd that takes
// images (takesImages) the image flags of its set, bound to f: the root
// calls it once the tree is built.
func (f *imageFlags) register(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		f.register(sub)
	}
	set, ok := cmd.Annotations[imageFlagsAnnotation]
	if !ok {
		return
	}
	fs := cmd.Flags()
	f.addRegistryFlags(fs)
	if imageFlagSet(set) == registryFlags {
		return
	}
	fs.StringVar(&f.platform, "platform", defaultPlatform, "platform to pick from multi-platform images (os/arch[/variant])")
	if imageFlagSet(set) == imageSourceFlags {
		fs.StringVar(&f.source, "source", "", "which catalog of an image carrying both labels to read: sqlite or configs (default: migrate reads sqlite, the other commands configs)")
	}
	addLimitFlags(fs, &f.limits)
}

// addRegistryFlags registers the flags that say how to reach registries
// (TLS, auth file locations, mirrors, layer cache).
func (f *imageFlags) addRegistryFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.useHTTP, "use-http", false, "allow plain HTTP to image registries")
	fs.BoolVar(&f.skipTLSVerify, "skip-tls-verify", false, "accept any TLS certificate from image registries")
	fs.StringVar(&f.caFile, "ca-file", "", "trust the PEM certificates in `FILE` for image registries, beside the system roots")
	fs.StringVar(&f.cacheDir, "image-cache-dir", "", "keep pulled image layers in this OCI layout `DIR` (default <user cache dir>/olmcat/images)")
	fs.BoolVar(&f.noCache, "no-image-cache", false, "do not keep pulled image layers")
	fs.StringVar(&f.registriesConf, "registries-conf", "", "registries.conf (v2) with mirrors and blocked or insecure registries (default $"+image.RegistriesConfEnv+", ~/.config/containers/registries.conf, /etc/containers/registries.conf)")
}

// options turns the flags into image options (a usage error if bad),
// with the environment's defaults (image.Settings).
func (f *imageFlags) options() ([]image.Option, error) {
	p, err := image.ParsePlatform(f.platform)
	if err != nil {
		return nil, fmt.Errorf("--platform: %w", err)
	}
	src, err := image.ParseSource(f.source)
	if err != nil {
		return nil, fmt.Errorf("--source: %w", err)
	}
	return image.Settings{
		UseHTTP: f.useHTTP, SkipTLSVerify: f.skipTLSVerify, CAFile: f.caFile, Platform: p, Source: src, Limits: f.limits,
		UserAgent: "olmcat", CacheDir: f.cacheDir, NoCache: f.noCache, RegistriesConf: f.registriesConf,
	}.Options()
}

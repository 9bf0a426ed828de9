package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
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

// registriesConfEnv names the registries.conf podman reads; olmcat reads
// the same file.
const registriesConfEnv = "CONTAINERS_REGISTRIES_CONF"

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

// The flags raising image.DefaultLimits, by the limit they raise.
var limitFlags = map[image.LimitKind]string{
	image.LimitBytes:     "max-image-bytes",
	image.LimitFileBytes: "max-image-file-bytes",
	image.LimitFiles:     "max-image-files",
	image.LimitRatio:     "max-image-ratio",
	image.LimitTime:      "image-timeout",
}

// addLimitFlags registers the flags of the image limits, defaulting to
// image.DefaultLimits.
func addLimitFlags(fs *pflag.FlagSet, l *image.Limits) {
	d := image.DefaultLimits
	*l = d
	fs.Var(&sizeValue{&l.MaxBytes}, limitFlags[image.LimitBytes], "most bytes an image input may write, `SIZE` with an optional KiB/MiB/GiB/TiB unit")
	fs.Var(&sizeValue{&l.MaxFileBytes}, limitFlags[image.LimitFileBytes], "most bytes one file of an image input may hold (`SIZE`)")
	fs.Int64Var(&l.MaxFiles, limitFlags[image.LimitFiles], d.MaxFiles, "most files an image input may write")
	fs.Int64Var(&l.MaxRatio, limitFlags[image.LimitRatio], d.MaxRatio, "most times a layer may expand over its compressed size (checked past 64 MiB)")
	fs.DurationVar(&l.Timeout, limitFlags[image.LimitTime], d.Timeout, "longest time to pull and extract an image input")
}

// sizeValue is a byte count flag: a number with an optional binary unit.
type sizeValue struct{ n *int64 }

func (v *sizeValue) Type() string { return "size" }

func (v *sizeValue) String() string {
	if v.n == nil {
		return "0"
	}
	for _, u := range sizeUnits {
		if *v.n >= u.n && *v.n%u.n == 0 {
			return strconv.FormatInt(*v.n/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(*v.n, 10)
}

var sizeUnits = []struct {
	name string
	n    int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

func (v *sizeValue) Set(s string) error {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(num, u.name); ok {
			num, mult = strings.TrimSpace(rest), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("%q: want a positive number of bytes with an optional KiB, MiB, GiB or TiB unit", s)
	}
	*v.n = n * mult
	return nil
}

// imageError adds to an image error the flag that changes the outcome:
// the limit's flag, or --use-http for a plain HTTP registry.
func imageError(err error) error {
	var le *image.LimitError
	switch {
	case errors.As(err, &le):
		return fmt.Errorf("%w (raise it with --%s)", err, limitFlags[le.Kind])
	case errors.Is(err, image.ErrPlainHTTP):
		return fmt.Errorf("%w; if that registry is meant to be reached in plain HTTP, add --use-http", err)
	}
	return err
}

// addRegistryFlags registers the flags that say how to reach registries
// (TLS, auth file locations, mirrors, layer cache).
func (f *imageFlags) addRegistryFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&f.useHTTP, "use-http", false, "allow plain HTTP to image registries")
	fs.BoolVar(&f.skipTLSVerify, "skip-tls-verify", false, "accept any TLS certificate from image registries")
	fs.StringVar(&f.caFile, "ca-file", "", "trust the PEM certificates in `FILE` for image registries, beside the system roots")
	fs.StringVar(&f.cacheDir, "image-cache-dir", "", "keep pulled image layers in this OCI layout `DIR` (default <user cache dir>/olmcat/images)")
	fs.BoolVar(&f.noCache, "no-image-cache", false, "do not keep pulled image layers")
	fs.StringVar(&f.registriesConf, "registries-conf", "", "registries.conf (v2) with mirrors and blocked or insecure registries (default $"+registriesConfEnv+", ~/.config/containers/registries.conf, /etc/containers/registries.conf)")
}

// options turns the flags into image options (a usage error if bad).
func (f *imageFlags) options() ([]image.Option, error) {
	p, err := image.ParsePlatform(f.platform)
	if err != nil {
		return nil, fmt.Errorf("--platform: %w", err)
	}
	src, err := image.ParseSource(f.source)
	if err != nil {
		return nil, fmt.Errorf("--source: %w", err)
	}
	if path := os.Getenv("REGISTRY_AUTH_FILE"); path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("REGISTRY_AUTH_FILE names %s: %w", path, err)
		}
	}
	opts := []image.Option{
		image.WithUseHTTP(f.useHTTP), image.WithSkipTLSVerify(f.skipTLSVerify), image.WithCAFile(f.caFile),
		image.WithPlatform(p), image.WithSource(src), image.WithUserAgent("olmcat"), image.WithLimits(f.limits),
	}
	if !f.noCache {
		dir := f.cacheDir
		if dir == "" {
			if dir, err = image.DefaultCacheDir(); err != nil {
				return nil, err
			}
		}
		opts = append(opts, image.WithCacheDir(dir))
	}
	confPath, explicit := f.registriesConf, f.registriesConf != ""
	if !explicit {
		home, _ := os.UserHomeDir()
		confPath = image.DefaultRegistriesConfPath(os.Getenv(registriesConfEnv), home)
		explicit = os.Getenv(registriesConfEnv) != ""
	}
	conf, err := image.LoadRegistriesConf(confPath, !explicit)
	if err != nil {
		return nil, err
	}
	return append(opts, image.WithRegistriesConf(conf)), nil
}

// resolve resolves the argument ref of a command (resolveInput) and
// prints what Resolve noticed of a local path as every command prints it.
func (f *imageFlags) resolve(ctx context.Context, ref string, want input.Want, verb string, stderr io.Writer, opts ...input.Option) (*input.Input, error) {
	in, err := f.resolveInput(ctx, ref, want, verb, stderr, opts...)
	if err != nil {
		return nil, err
	}
	tellNotes(stderr, in)
	return in, nil
}

// resolveInput resolves the argument ref of a command (input.Resolve): an
// image is pulled with the image flags, its progress and notes on stderr.
// A pull failure is exit 1 naming the flag that changes it; a
// bundle image where a catalog is wanted is exit 1 naming the command to
// run instead (verb names the command refusing it). The other errors
// (telling what ref is, *input.NotBundleError) are returned as they are,
// for the caller to word (inputError). The caller closes the input.
func (f *imageFlags) resolveInput(ctx context.Context, ref string, want input.Want, verb string, stderr io.Writer, opts ...input.Option) (*input.Input, error) {
	in, err := input.Resolve(ctx, ref, want, append([]input.Option{f.pullOptions(stderr)}, opts...)...)
	var pe *input.PullError
	var be *input.BundleError
	switch {
	case errors.As(err, &pe):
		return nil, &exitError{code: exitInvalid, err: imageError(pe.Err)}
	case errors.As(err, &be) && be.Image:
		return nil, refuseBundle(be.Ref, verb)
	}
	return in, err
}

// pullOptions are the options images are pulled with: the image flags
// (a usage error if bad, only once an image is pulled), a progress bar and
// the notes of the pull on stderr.
func (f *imageFlags) pullOptions(stderr io.Writer) input.Option {
	return input.WithImageOptions(func(ref string) ([]image.Option, error) {
		opts, err := f.options()
		if err != nil {
			return nil, usageError(err)
		}
		return append(opts, image.WithProgress(&pullProgress{w: stderr, desc: "pulling " + ref}),
			image.WithNotes(func(s string) { fmt.Fprintln(stderr, "note:", s) })), nil
	})
}

// inputError is err of resolve as the command returns it: word words the
// errors resolve leaves to the caller (nil stays nil).
func inputError(err error, word func(error) error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return word(err)
}

// refuseBundle is the error of commands that need a catalog when given the
// bundle image ref.
func refuseBundle(ref, verb string) error {
	return &exitError{code: exitInvalid, err: fmt.Errorf("%s %s: this is a bundle image (label %s), not a catalog; olmcat render %s prints its olm.bundle blob",
		verb, ref, annotation.Package, ref)}
}

// pullProgress shows the layer bytes an image extraction reads as a
// progress bar (on a terminal only, see newProgress).
type pullProgress struct {
	w    io.Writer
	desc string
	bar  *progress
}

func (p *pullProgress) Start(total int64) { p.bar = newProgress(p.w, int(total), p.desc, false) }
func (p *pullProgress) Add(n int64)       { p.bar.Add(int(n)) }
func (p *pullProgress) Done()             { p.bar.Done() }

// tellNotes prints what resolving in noticed: that a local path won over
// an image reference of the same name, and what was finished of a write of
// in that a killed run had committed.
func tellNotes(stderr io.Writer, in *input.Input) {
	if in.Note != "" {
		fmt.Fprintln(stderr, "note:", in.Note)
	}
	tellFinished(stderr, in)
}

// tellFinished prints what was finished of a write of in that a killed
// run had committed (input.Input.Finished).
func tellFinished(stderr io.Writer, in *input.Input) {
	for _, s := range in.Finished {
		fmt.Fprintln(stderr, s)
	}
}

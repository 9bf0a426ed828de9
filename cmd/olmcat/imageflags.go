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

	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/registry/source"
)

// imageFlags are the flags of every command that accepts image inputs.
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

// registriesConfEnv names the registries.conf podman reads; olmcat reads
// the same file.
const registriesConfEnv = "CONTAINERS_REGISTRIES_CONF"

// addImageFlags registers the image flags on fs. withSource adds --source
// for commands that read one catalog of an image.
func addImageFlags(fs *pflag.FlagSet, withSource bool) *imageFlags {
	f := addRegistryFlags(fs)
	fs.StringVar(&f.platform, "platform", "linux/amd64", "platform to pick from multi-platform images (os/arch[/variant])")
	if withSource {
		fs.StringVar(&f.source, "source", "", "which catalog of an image carrying both labels to read: sqlite or configs (default: migrate reads sqlite, the other commands configs)")
	}
	addLimitFlags(fs, &f.limits)
	return f
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
func addRegistryFlags(fs *pflag.FlagSet) *imageFlags {
	f := &imageFlags{platform: "linux/amd64"}
	fs.BoolVar(&f.useHTTP, "use-http", false, "allow plain HTTP to image registries")
	fs.BoolVar(&f.skipTLSVerify, "skip-tls-verify", false, "accept any TLS certificate from image registries")
	fs.StringVar(&f.caFile, "ca-file", "", "trust the PEM certificates in `FILE` for image registries, beside the system roots")
	fs.StringVar(&f.cacheDir, "image-cache-dir", "", "keep pulled image layers in this OCI layout `DIR` (default <user cache dir>/olmcat/images)")
	fs.BoolVar(&f.noCache, "no-image-cache", false, "do not keep pulled image layers")
	fs.StringVar(&f.registriesConf, "registries-conf", "", "registries.conf (v2) with mirrors and blocked or insecure registries (default $"+registriesConfEnv+", ~/.config/containers/registries.conf, /etc/containers/registries.conf)")
	return f
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

// localInput returns in itself for local inputs, and for an image pulls
// it, extracts its catalog and returns the extracted path detected
// again (a sqlite file or a configs dir; for a bundle image, u.Kind says
// so and the dir is the image root holding manifests/ and metadata/).
// The caller closes the Extracted (nil for local inputs) on every path.
func (f *imageFlags) localInput(ctx context.Context, in source.Input, preferSQLite bool, stderr io.Writer) (source.Input, *image.Extracted, error) {
	if in.Note != "" {
		fmt.Fprintln(stderr, "note:", in.Note)
	}
	tellFinished(stderr, in)
	if in.Kind != source.KindImage {
		return in, nil, nil
	}
	opts, err := f.options()
	if err != nil {
		return source.Input{}, nil, usageError(err)
	}
	opts = append(opts, image.WithPreferSQLite(preferSQLite), image.WithProgress(&pullProgress{w: stderr, desc: "pulling " + in.Image}),
		image.WithNotes(func(s string) { fmt.Fprintln(stderr, "note:", s) }))
	u, err := image.ExtractCatalog(ctx, in.Image, opts...)
	if err != nil {
		return source.Input{}, nil, &exitError{code: exitInvalid, err: imageError(err)}
	}
	local, err := source.Detect(u.Local)
	if err != nil {
		u.Close()
		return source.Input{}, nil, &exitError{code: exitInvalid, err: fmt.Errorf("image %s: %w", in.Image, err)}
	}
	return local, u, nil
}

// refuseBundle is the error of commands that need a catalog when given a
// bundle image.
func refuseBundle(u *image.Extracted, verb string) error {
	if u == nil || u.Kind != image.KindBundle {
		return nil
	}
	return &exitError{code: exitInvalid, err: fmt.Errorf("%s %s: this is a bundle image (label %s), not a catalog; olmcat render %s prints its olm.bundle blob",
		verb, u.Pulled.Ref, image.LabelBundlePackage, u.Pulled.Ref)}
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

// tellFinished prints what Detect finished of a write of in that a killed
// run had committed (source.Input.Finished).
func tellFinished(stderr io.Writer, in source.Input) {
	for _, s := range in.Finished {
		fmt.Fprintln(stderr, s)
	}
}

package image

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// DockerfileOptions are the choices of opm generate dockerfile.
type DockerfileOptions struct {
	// BaseImage is the final stage's image (required: olmcat names no
	// registry, so the opm image a pipeline uses is always its own
	// choice); "scratch" makes a binary-less image served through OLM's
	// extractContent.
	BaseImage string
	// BuilderImage runs opm serve --cache-only; it must contain /bin/opm,
	// so scratch is refused. Empty means BaseImage, which then may not be
	// scratch.
	BuilderImage string
	// ExtraLabels are added sorted by key after the configs label.
	ExtraLabels map[string]string
}

// Dockerfile returns the Dockerfile opm v1.73 generates for the catalog
// directory named dirName (the basename ADDed from the build context,
// the directory's parent): a builder stage that pre-builds the serve
// cache and a final stage serving /configs with it.
func Dockerfile(dirName string, o DockerfileOptions) (string, error) {
	if o.BaseImage == "" {
		return "", errors.New("no base image: name the opm image the catalog is served with")
	}
	if o.BuilderImage == "" {
		o.BuilderImage = o.BaseImage
	}
	if o.BuilderImage == "scratch" {
		return "", fmt.Errorf("invalid builder image: %q", o.BuilderImage)
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# The builder image is expected to contain
# /bin/opm (with serve subcommand)
FROM %s as builder

# Copy FBC root into image at /configs and pre-populate serve cache
ADD %s /configs
RUN ["/bin/opm", "serve", "/configs", "--cache-dir=/tmp/cache", "--cache-only"]

FROM %s
`, o.BuilderImage, dirName, o.BaseImage)
	if o.BaseImage == "scratch" {
		b.WriteString(`# The scratch base image has no /bin/opm: OLMv0 serves this catalog with its
# own opm when the CatalogSource sets
#   spec.grpcPodConfig.extractContent.catalogDir: /configs
#   spec.grpcPodConfig.extractContent.cacheDir: /tmp/cache
`)
	} else {
		b.WriteString(`# The base image is expected to contain
# /bin/opm (with serve subcommand) and /bin/grpc_health_probe

# Configure the entrypoint and command
ENTRYPOINT ["/bin/opm"]
CMD ["serve", "/configs", "--cache-dir=/tmp/cache"]
`)
	}
	fmt.Fprintf(&b, `
COPY --from=builder /configs /configs
COPY --from=builder /tmp/cache /tmp/cache

# Set FBC-specific label for the location of the FBC root directory
# in the image
LABEL %s=/configs
`, LabelConfigs)
	if len(o.ExtraLabels) > 0 {
		b.WriteString("\n# Set other custom labels\n")
		keys := make([]string, 0, len(o.ExtraLabels))
		for k := range o.ExtraLabels {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			// Quoted as opm's template quotes them: verbatim.
			fmt.Fprintf(&b, "LABEL \"%s\"=\"%s\"\n", k, o.ExtraLabels[k])
		}
	}
	return b.String(), nil
}

// WriteDockerfile writes Dockerfile(basename of dir) beside dir, as
// <parent>/<basename>.Dockerfile, and returns its path. An existing file
// is never replaced; dir must be a directory.
func WriteDockerfile(dir string, o DockerfileOptions) (string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !st.IsDir() {
		return "", fmt.Errorf("provided root path %q is not a directory", dir)
	}
	clean := filepath.Clean(dir)
	abs, err := filepath.Abs(clean)
	if err != nil {
		return "", err
	}
	name := filepath.Base(abs)
	text, err := Dockerfile(name, o)
	if err != nil {
		return "", err
	}
	parent := filepath.Dir(clean)
	if filepath.Base(clean) != name { // "." or ".."
		parent = filepath.Dir(abs)
	}
	p := filepath.Join(parent, name+".Dockerfile")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return "", pathcheck.Exists("path %q: file already exists", p)
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(p)
		return "", fmt.Errorf("write %s: %w", p, err)
	}
	return p, f.Close()
}

package image

import v1 "github.com/google/go-containerregistry/pkg/v1"

// BuildTool makes olmcat's own image index, the image that stands where
// an opm image is named (OLM's opm image, the base of opm's Dockerfiles,
// build's base image, the unpack Job's tool image): for each platform of
// WithPlatforms its static binary from WithBinary at /bin/olmcat, linked
// as /bin/opm and /bin/grpc_health_probe, and a world-writable /tmp (a
// Dockerfile's RUN opm serve --cache-only writes /tmp/cache there), with
// the config of opm's image: entrypoint /bin/opm, user 1001, and PATH.
// WithCreated and WithBuildTempDir apply as in Build; the other options
// are Build's alone. The same binaries give the same digests.
func BuildTool(opts ...BuildOption) (_ *Built, err error) {
	o, b, err := newBuild(opts)
	if err != nil {
		return nil, err
	}
	defer func() {
		// b itself: a "return nil, err" has set the result to nil already.
		if err != nil {
			b.Close()
		}
	}()
	tmpDir := []layerFile{{name: "tmp", mode: 0o1777}}
	b.Index, err = o.index(func(p v1.Platform) (v1.Image, error) {
		img, err := o.binaryImage(p, b.dir.Path, tmpDir)
		if err != nil {
			return nil, err
		}
		return withConfig(img, p, o.created, func(c *v1.Config) {
			c.Entrypoint = []string{OPMPath}
			c.User = "1001"
			c.Env = []string{"PATH=" + SearchPath}
		})
	})
	if err != nil {
		return nil, err
	}
	return b, nil
}

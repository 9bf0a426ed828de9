package image

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// platformImage makes the image of one platform: self-serving (binary,
// configs and cache layers on an empty image) or the configs on the base.
func (o *buildOptions) platformImage(ctx context.Context, p v1.Platform, layers []v1.Layer, cache bool, tmp string) (v1.Image, error) {
	if o.baseImage != "" {
		return o.onBase(ctx, p, layers)
	}
	img, err := o.binaryImage(p, tmp, nil, layers...)
	if err != nil {
		return nil, err
	}
	cmd := []string{"serve", ConfigsPath}
	if cache {
		cmd = append(cmd, "--cache-dir="+CachePath)
	}
	return withConfig(img, p, o.created, func(c *v1.Config) {
		c.Labels[LabelConfigs] = ConfigsPath
		c.Entrypoint = []string{BinaryPath}
		c.Cmd = cmd
		c.User = "1001"
		c.Env = []string{"PATH=" + SearchPath}
		c.ExposedPorts = map[string]struct{}{ServePort: {}}
	})
}

// binaryImage is an image of platform p holding its static olmcat
// binary (under its three names) and extra entries in one layer, then
// layers; its config is still empty.
func (o *buildOptions) binaryImage(p v1.Platform, tmp string, extra []layerFile, layers ...v1.Layer) (v1.Image, error) {
	bin, ok := o.binaries[platformString(p)]
	if !ok {
		return nil, fmt.Errorf("build: no olmcat binary for %s: build one with CGO_ENABLED=0 GOOS=%s GOARCH=%s go build -o olmcat-%s-%s ./cmd/olmcat and give it as the binary of %s",
			platformString(p), p.OS, p.Architecture, p.OS, p.Architecture, platformString(p))
	}
	if err := CheckBinary(bin, p); err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	binLayer, err := reproducibleLayer(append(binaryFiles(bin), extra...), o.created, tmp)
	if err != nil {
		return nil, fmt.Errorf("build: binary layer: %w", err)
	}
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	img, err = mutate.AppendLayers(img, append([]v1.Layer{binLayer}, layers...)...)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return img, nil
}

// binaryFiles are the entries of an image's binary layer: /bin/olmcat
// and its two other names as hard links to it.
func binaryFiles(bin string) []layerFile {
	return []layerFile{
		{name: "bin", mode: 0o755},
		{name: BinaryPath[1:], local: bin, mode: 0o755},
		{name: OPMPath[1:], link: BinaryPath[1:], mode: 0o755},
		{name: ProbePath[1:], link: BinaryPath[1:], mode: 0o755},
	}
}

// onBase appends the configs layer to the base image of platform p, with
// opm's entrypoint and a command that builds opm's cache at start.
func (o *buildOptions) onBase(ctx context.Context, p v1.Platform, layers []v1.Layer) (v1.Image, error) {
	pulled, err := Pull(ctx, o.baseImage, append(o.pull, WithPlatform(p))...)
	if err != nil {
		return nil, fmt.Errorf("build: base image: %w", err)
	}
	img, err := mutate.AppendLayers(pulled.Image, layers...)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	return withConfig(img, p, o.created, func(c *v1.Config) {
		c.Labels[LabelConfigs] = ConfigsPath
		c.Entrypoint = []string{OPMPath}
		c.Cmd = []string{"serve", ConfigsPath}
	})
}

// withConfig sets the platform and creation time and what edit changes
// (Labels is never nil) in img's config.
func withConfig(img v1.Image, p v1.Platform, created time.Time, edit func(*v1.Config)) (v1.Image, error) {
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("build: config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Variant = p.OS, p.Architecture, p.Variant
	cf.Created = v1.Time{Time: created}
	cf.History = nil
	if cf.Config.Labels == nil {
		cf.Config.Labels = map[string]string{}
	}
	edit(&cf.Config)
	img, err = mutate.ConfigFile(img, cf)
	if err != nil {
		return nil, fmt.Errorf("build: config: %w", err)
	}
	return img, nil
}

// stageTree copies the directories and regular files of src to dst with
// every time set to t: the serve cache keys on file times, and the image
// carries these times.
func stageTree(src, dst string, t time.Time) error {
	files, err := treeFiles(src, ".")
	if err != nil {
		return fmt.Errorf("stage %s: %w", src, err)
	}
	var dirs []string
	for _, f := range files {
		out := filepath.Join(dst, filepath.FromSlash(f.name))
		if f.local == "" {
			dirs = append(dirs, out)
			if err := os.MkdirAll(out, 0o755); err != nil {
				return fmt.Errorf("stage %s: %w", src, err)
			}
			// The layer's modes whatever the umask: opm's serve cache
			// digests the catalog's modes (declcfgquery.PrebuildCache).
			if err := os.Chmod(out, 0o755); err != nil {
				return fmt.Errorf("stage %s: %w", src, err)
			}
			continue
		}
		if err := copyFile(f.local, out); err != nil {
			return fmt.Errorf("stage %s: %w", src, err)
		}
		if err := os.Chmod(out, 0o644); err != nil {
			return fmt.Errorf("stage %s: %w", src, err)
		}
		if err := os.Chtimes(out, t, t); err != nil {
			return err
		}
	}
	// Directories last, deepest first: writing files changed their times.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chtimes(dirs[i], t, t); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

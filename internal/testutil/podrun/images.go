package podrun

import (
	"archive/tar"
	"bytes"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/stretchr/testify/require"
)

// File is an entry of an image the harness builds: a directory, a copy
// of a host file, or a hard link to an earlier entry.
type File struct {
	// Path is the entry's path in the image, without a leading slash.
	Path string
	// Source is the host file copied (a regular file).
	Source string
	// Link is the earlier entry a hard link points at.
	Link string
	// Dir makes the entry a directory.
	Dir bool
	// Mode is the entry's permission bits (and sticky bit).
	Mode fs.FileMode
}

// Image builds a one-layer image for this machine's platform of files,
// with config, reproducibly (file times are the epoch).
func Image(t testing.TB, config v1.Config, files ...File) v1.Image {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		hdr := &tar.Header{Name: f.Path, Mode: int64(f.Mode.Perm()), ModTime: time.Unix(0, 0), Format: tar.FormatPAX}
		if f.Mode&fs.ModeSticky != 0 {
			hdr.Mode = int64(f.Mode.Perm()) | 0o1000
		}
		var data []byte
		switch {
		case f.Dir:
			hdr.Typeflag, hdr.Name = tar.TypeDir, f.Path+"/"
		case f.Link != "":
			hdr.Typeflag, hdr.Linkname = tar.TypeLink, f.Link
		default:
			var err error
			data, err = os.ReadFile(f.Source)
			require.NoError(t, err)
			hdr.Typeflag, hdr.Size = tar.TypeReg, int64(len(data))
		}
		require.NoError(t, tw.WriteHeader(hdr))
		_, err := tw.Write(data)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(buf.Bytes())), nil })
	require.NoError(t, err)
	img, err := mutate.AppendLayers(empty.Image, layer)
	require.NoError(t, err)
	cf, err := img.ConfigFile()
	require.NoError(t, err)
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Config = "linux", runtime.GOARCH, config
	img, err = mutate.ConfigFile(img, cf)
	require.NoError(t, err)
	return img
}

// OLMImage is OLM's own image as its pods use it: /bin/copy-content,
// /bin/cp and /bin/cpb, one static binary (olmtools) under three names,
// and PATH.
func OLMImage(t testing.TB) v1.Image {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "olmtools")
	cmd := exec.Command("go", "build", "-trimpath", "-o", bin, "github.com/operator-catalog/olmcat/internal/testutil/podrun/olmtools")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "build olmtools: %s", out)
	return Image(t, v1.Config{Env: []string{"PATH=" + defaultPath}},
		File{Path: "bin", Dir: true, Mode: 0o755},
		File{Path: "bin/copy-content", Source: bin, Mode: 0o755},
		File{Path: "bin/cp", Link: "bin/copy-content"},
		File{Path: "bin/cpb", Link: "bin/copy-content"},
		File{Path: "tmp", Dir: true, Mode: 0o777 | fs.ModeSticky})
}

package podrun

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"

	"github.com/operator-catalog/olmcat/image"
)

// pulled is an image as the runtime keeps it: the config and the
// flattened filesystem, unpacked once per container start (a restarted
// container gets a fresh writable layer, as with containerd).
type pulled struct {
	img    v1.Image
	config v1.Config
}

// pull fetches ref with olmcat's image code (for the runtime's platform).
// Its layers are read later, by every start of a container of any pod:
// they are fetched with the runtime's context, not a pod's.
func (r *Runtime) pull(ref string) (*pulled, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.images[ref]; ok {
		return p, nil
	}
	p, err := image.Pull(context.Background(), ref, r.pullOpts...)
	if err != nil {
		return nil, err
	}
	cf, err := p.Image.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("image %s: config: %w", ref, err)
	}
	out := &pulled{img: p.Image, config: cf.Config}
	r.images[ref] = out
	return out, nil
}

// unpack writes the image's layers, applied in order with whiteouts and
// opaque directories (go-containerregistry's mutate.Extract), into the
// empty directory dir, owners and modes as recorded. Nothing is written
// outside dir: every path is resolved inside it (os.Root).
func (p *pulled) unpack(dir string) error {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	rc := mutate.Extract(p.img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	// Directory times are set last: writing into a directory changes
	// them. Times matter: a serve cache is keyed on the files' mtimes.
	var dirs []*tar.Header
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("flatten layers: %w", err)
		}
		if err := writeEntry(root, hdr, tr); err != nil {
			return fmt.Errorf("entry %s: %w", hdr.Name, err)
		}
		if hdr.Typeflag == tar.TypeDir {
			dirs = append(dirs, hdr)
		}
	}
	// mutate.Extract writes the tar trailer before it closes the pipe
	// with its error: a layer that failed to download reads as a
	// complete (empty) archive, and only the rest of the stream carries
	// the error.
	if _, err := io.Copy(io.Discard, rc); err != nil {
		return fmt.Errorf("flatten layers: %w", err)
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := root.Chtimes(entryName(dirs[i].Name), dirs[i].AccessTime, dirs[i].ModTime); err != nil {
			return fmt.Errorf("entry %s: %w", dirs[i].Name, err)
		}
	}
	return nil
}

// entryName is a tar entry's path relative to the root.
func entryName(name string) string { return path.Clean(strings.TrimPrefix(name, "/")) }

// writeEntry creates hdr's entry (content from r) in root.
func writeEntry(root *os.Root, hdr *tar.Header, r io.Reader) error {
	name := entryName(hdr.Name)
	if name == "." {
		return nil
	}
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	mode := fs.FileMode(hdr.Mode).Perm() | fs.FileMode(hdr.Mode)&(fs.ModeSetuid|fs.ModeSetgid|fs.ModeSticky)
	switch hdr.Typeflag {
	case tar.TypeDir:
		if err := root.Mkdir(name, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	case tar.TypeReg:
		f, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
		if err != nil {
			return err
		}
		_, err = io.Copy(f, r)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	case tar.TypeSymlink:
		return lchown(root.Symlink(hdr.Linkname, name), root, name, hdr)
	case tar.TypeLink:
		return root.Link(entryName(hdr.Linkname), name)
	default:
		return nil // devices and fifos: a container gets its /dev from the runtime
	}
	if err := root.Lchown(name, hdr.Uid, hdr.Gid); err != nil {
		return err
	}
	if err := root.Chmod(name, mode); err != nil {
		return err
	}
	if hdr.Typeflag == tar.TypeReg {
		return root.Chtimes(name, hdr.AccessTime, hdr.ModTime)
	}
	return nil
}

func lchown(err error, root *os.Root, name string, hdr *tar.Header) error {
	if err != nil {
		return err
	}
	return root.Lchown(name, hdr.Uid, hdr.Gid)
}

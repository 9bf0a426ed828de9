package image

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Push writes idx to the registry as ref, with the same auth, TLS and
// registries.conf insecure settings as pulls (mirrors are for pulls
// only; a blocked registry is refused).
func Push(ctx context.Context, ref string, idx v1.ImageIndex, opts ...Option) error {
	o := makeOptions(opts)
	insecure := false
	if o.registries != nil {
		eps, err := o.registries.Endpoints(ref)
		if err != nil {
			return err
		}
		insecure = eps[len(eps)-1].Insecure
	}
	ro, nref, err := o.remoteOptions(ctx, ref, insecure)
	if err != nil {
		return err
	}
	if err := remote.WriteIndex(nref, idx, ro...); err != nil {
		return remoteError(ref, fmt.Errorf("push: %w", err))
	}
	return nil
}

// WriteLayout writes idx as an OCI image layout at dir, its index
// annotated with ref as org.opencontainers.image.ref.name. dir must not
// exist or be empty; the layout is written beside it and renamed into
// place, so a failed write leaves nothing.
func WriteLayout(dir, ref string, idx v1.ImageIndex) (err error) {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("write OCI layout: %s exists and is not empty", dir)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), "."+filepath.Base(dir)+"-*")
	if err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	p, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	if err := p.AppendIndex(idx, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": ref})); err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	os.Remove(dir) // an empty dir is replaced
	if err := os.Rename(tmp, dir); err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	return nil
}

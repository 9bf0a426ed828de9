package image

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/operator-catalog/olmcat/internal/crashpoint"
	"github.com/operator-catalog/olmcat/internal/outdir"
)

// Push writes idx to the registry as ref, with the same auth, TLS and
// registries.conf insecure settings as pulls (mirrors are for pulls
// only; a blocked registry is refused).
func Push(ctx context.Context, ref string, idx v1.ImageIndex, opts ...Option) error {
	return push(ctx, ref, func(r name.Reference, ro ...remote.Option) error { return remote.WriteIndex(r, idx, ro...) }, opts)
}

// PushImage writes the single image img to the registry as ref, as Push
// writes an index.
func PushImage(ctx context.Context, ref string, img v1.Image, opts ...Option) error {
	return push(ctx, ref, func(r name.Reference, ro ...remote.Option) error { return remote.Write(r, img, ro...) }, opts)
}

func push(ctx context.Context, ref string, write func(name.Reference, ...remote.Option) error, opts []Option) error {
	o := makeOptions(opts)
	ref = strings.TrimPrefix(ref, ImagePrefix)
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
	if err := write(nref, ro...); err != nil {
		return o.remoteError("push", ref, err)
	}
	return nil
}

// WriteLayout writes idx as an OCI image layout at dir, its index
// annotated with ref as org.opencontainers.image.ref.name. dir must not
// exist or be empty, unless replace is set and dir is an OCI layout (it
// holds an oci-layout file): anything else is never replaced. The layout
// is written beside dir (inside it when dir is a mount point) and moved
// into place after a commit record (internal/outdir), so a failed or
// killed write leaves the old layout or, once the next write of dir ran,
// the new one whole. What killed writes of dir left is finished or
// removed first, each passed to note when it is set.
func WriteLayout(dir, ref string, idx v1.ImageIndex, replace bool, note func(string)) error {
	return writeLayout(dir, replace, note, func(p layout.Path) error {
		return p.AppendIndex(idx, layout.WithAnnotations(map[string]string{refNameAnnotation: ref}))
	})
}

// WriteImageLayout writes the single image img as an OCI image layout at
// dir, as WriteLayout writes an index.
func WriteImageLayout(dir, ref string, img v1.Image, replace bool, note func(string)) error {
	return writeLayout(dir, replace, note, func(p layout.Path) error {
		return p.AppendImage(img, layout.WithAnnotations(map[string]string{refNameAnnotation: ref}))
	})
}

func writeLayout(dir string, replace bool, note func(string), add func(layout.Path) error) (err error) {
	swept, err := outdir.Recover(dir)
	if note != nil {
		for _, s := range swept {
			note(s.String())
		}
	}
	if err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	old, err := CheckLayoutDir(dir, replace)
	if err != nil {
		return err
	}
	tx, err := outdir.Begin(dir, old)
	if err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	defer func() { _ = tx.Abort() }() // a no-op once committed
	p, err := layout.Write(tx.Dir(), empty.Index)
	if err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	if err := add(p); err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	crashpoint.Hit("written OCI layout " + dir)
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	return nil
}

// CheckLayoutDir tells whether WriteLayout may write at dir, and
// whether it would replace a layout there (see WriteLayout).
func CheckLayoutDir(dir string, replace bool) (exists bool, err error) {
	if _, err := outdir.Check(dir); err != nil {
		return false, fmt.Errorf("write OCI layout: %w", err)
	}
	ents, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist) || err == nil && len(ents) == 0:
		return false, nil
	case err != nil:
		return false, fmt.Errorf("write OCI layout: %w", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
		return false, fmt.Errorf("write OCI layout: %s exists and is neither empty nor an OCI layout: not replaced", dir)
	}
	if !replace {
		return false, fmt.Errorf("write OCI layout: %s: %w", dir, ErrLayoutExists)
	}
	return true, nil
}

// ErrLayoutExists is returned by WriteLayout for an existing layout it
// was not asked to replace.
var ErrLayoutExists = errors.New("an OCI layout exists there")

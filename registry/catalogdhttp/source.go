package catalogdhttp

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// DirSource is the Source of the declarative config directory root: its
// blobs in catalogd's walk order (declcfg.WalkBlobs), as written in their
// files.
func DirSource(root string) Source {
	return func(ctx context.Context, emit Emit) error {
		return declcfg.WalkBlobs(ctx, root, func(file string, index int, blob json.RawMessage) error {
			return emit(blob, file, index)
		})
	}
}

// FileSource is the Source of a declarative config kept in one file.
func FileSource(name string) Source {
	return func(ctx context.Context, emit Emit) error {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		return declcfg.DecodeStream(f, func(blob json.RawMessage, index int) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			return emit(blob, name, index)
		})
	}
}

// DefaultName is the catalog name served when none is given: the base
// name of the image repository (image true: ref is an image reference,
// its tag or digest dropped) or of the path ref, made a DNS-1123
// subdomain of one label (lower case; every run of other characters,
// dots included, becomes one '-'); "catalog" when nothing is left.
func DefaultName(ref string, image bool) string {
	base := strings.TrimRight(ref, "/")
	if image {
		if i := strings.LastIndexByte(base, '@'); i >= 0 {
			base = base[:i]
		}
		if i := strings.LastIndexByte(base, ':'); i > strings.LastIndexByte(base, '/') {
			base = base[:i]
		}
	}
	base = path.Base(base)
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(base) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(c)
			dash = false
			continue
		}
		dash = true
	}
	name := b.String()
	if len(name) > 63 {
		name = strings.TrimRight(name[:63], "-")
	}
	if name == "" {
		return "catalog"
	}
	return name
}

package action

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/input"
)

// loadBundle renders one bundle image or bundle directory as olmcat's
// render does; the bundle's image is the reference as given (opm's
// bundlepath). csvMetadata stores olm.csv.metadata instead of the
// objects.
func loadBundle(ctx context.Context, env Env, arg string, csvMetadata bool) (indexop.NewBundle, error) {
	in, err := env.resolve(ctx, arg, input.Either, false)
	if err != nil {
		if pulled(err) {
			return indexop.NewBundle{}, err
		}
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) && pe.Path == arg {
			err = pe.Err // the path is named once, by the context below
		}
		return indexop.NewBundle{}, fmt.Errorf("bundle %s: %w", arg, err)
	}
	defer in.Close()
	if in.Kind != input.KindBundle {
		return indexop.NewBundle{}, fmt.Errorf("bundle %s: not a bundle image or bundle directory (manifests/ and metadata/)", arg)
	}
	b, meta, err := bundle.FromFS(os.DirFS(in.Path), bundle.WithImage(in.Image), bundle.WithCSVMetadata(csvMetadata),
		bundle.WithWarnings(func(msg string) { env.log("warning: " + msg) }))
	if err != nil {
		return indexop.NewBundle{}, fmt.Errorf("bundle %s: %w", arg, err)
	}
	return indexop.NewBundle{Bundle: b, Meta: meta}, nil
}

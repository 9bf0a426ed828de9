package action

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/input"
)

// List reads an index into the validated model opm alpha list prints its
// tables of packages, channels and bundles from: a declarative config
// directory or file, a legacy sqlite index (with Legacy told), or an
// image of either (its sqlite database preferred, as opm does).
type List struct {
	Env
	Legacy Legacy
	// Index is the index read.
	Index string
}

// ListResult is the index's model (model.ListPackages, ListChannels and
// ListBundles give its rows).
type ListResult struct {
	Model *model.Model
}

// Run resolves Index (pulling an image), loads it as Render does and
// builds its model; a bundle is refused.
func (l List) Run(ctx context.Context) (ListResult, error) {
	ref := l.Index
	in, err := l.resolve(ctx, ref, input.Either, false, input.PreferSQLite())
	if pulled(err) {
		return ListResult{}, err
	}
	if err != nil {
		return ListResult{}, fmt.Errorf("list %s: %w", ref, err)
	}
	defer in.Close()
	if in.Kind == input.KindBundle {
		return ListResult{}, fmt.Errorf("cannot list non-index %q", ref)
	}
	cfg, err := Render{Env: l.Env, Legacy: l.Legacy}.Load(ctx, ref, in)
	if err != nil {
		return ListResult{}, err
	}
	if err := cfg.ResolveBundleObjects(); err != nil {
		return ListResult{}, fmt.Errorf("list %s: %w", ref, err)
	}
	m, err := model.FromDeclcfg(cfg)
	if err != nil {
		return ListResult{}, fmt.Errorf("list %s: %w", ref, err)
	}
	return ListResult{Model: m}, nil
}

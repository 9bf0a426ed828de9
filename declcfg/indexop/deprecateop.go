package indexop

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg"
)

// DeprecateOp reads src once to plan opm's deprecatetruncate of the
// bundles with these images (Deprecation: images no bundle has, and with
// allowRemoval the packages it removes), then is the Op deprecating
// package by package, each changed package validated. What is refused
// (Check, PlanRemoval, Err) fails the operation, or with permissive is a
// note ("permissive: ...") and the rest goes on.
func DeprecateOp(ctx context.Context, src Source, images []string, allowRemoval, permissive bool, notes func(string)) (Op, error) {
	d := NewDeprecation(images)
	err := src(ctx, nil, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		if pkg != "" {
			d.Survey(cfg)
		}
		return nil
	})
	if err != nil {
		return Op{}, err
	}
	warnOr := func(err error) error {
		if err == nil || !permissive {
			return err
		}
		say(notes, fmt.Sprintf("permissive: %v", err))
		return nil
	}
	if err := warnOr(d.Check()); err != nil {
		return Op{}, err
	}
	if allowRemoval {
		if err := warnOr(d.PlanRemoval()); err != nil {
			return Op{}, err
		}
	}
	return Op{
		Apply: func(pkg string, cfg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, error) {
			if pkg == "" {
				return cfg, nil
			}
			res, changes := d.Apply(cfg)
			for _, c := range changes {
				say(notes, c)
			}
			if res == nil || len(changes) == 0 {
				return res, nil
			}
			return res, validatePackage(pkg, res)
		},
		Extra: func() ([]*declcfg.DeclarativeConfig, error) { return nil, warnOr(d.Err()) },
	}, nil
}

package migrate

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// TestEachHandsOnePackageAtATime: Each hands over the packages one by
// one, in order, and together they are what Load returns; an error from
// fn stops the walk.
func TestEachHandsOnePackageAtATime(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(fixturesDir, name, "index.db")
			want, _, err := Load(context.Background(), db)
			var pe *ProblemsError
			if errors.As(err, &pe) {
				t.Skip("the fixture does not convert without resolution flags")
			}
			require.NoError(t, err)
			got := &declcfg.DeclarativeConfig{}
			var names []string
			_, err = Each(context.Background(), db, func(cfg *declcfg.DeclarativeConfig) error {
				require.Len(t, cfg.Packages, 1)
				names = append(names, cfg.Packages[0].Name)
				got.Merge(cfg)
				return nil
			})
			require.NoError(t, err)
			require.True(t, slices.IsSorted(names), "%v", names)
			require.Equal(t, want, got)

			stop := errors.New("stop")
			calls := 0
			_, err = Each(context.Background(), db, func(*declcfg.DeclarativeConfig) error { calls++; return stop })
			require.ErrorIs(t, err, stop)
			require.Equal(t, 1, calls)
		})
	}
}

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
			_, err = Each(context.Background(), db, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
				require.Len(t, cfg.Packages, 1)
				require.Equal(t, cfg.Packages[0].Name, pkg)
				names = append(names, pkg)
				got.Merge(cfg)
				return nil
			})
			require.NoError(t, err)
			require.True(t, slices.IsSorted(names), "%v", names)
			require.Equal(t, want, got)

			stop := errors.New("stop")
			calls := 0
			_, err = Each(context.Background(), db, func(string, *declcfg.DeclarativeConfig) error { calls++; return stop })
			require.ErrorIs(t, err, stop)
			require.Equal(t, 1, calls)
		})
	}
}

// TestEachUnread: the packages WithUnread names are handed over as nil
// blobs, in their place, without being read (their findings are not in
// the report); the others are as without it. Only Each takes the option.
func TestEachUnread(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(fixturesDir, "community-bundles", "index.db")
	full := map[string]*declcfg.DeclarativeConfig{}
	var all []string
	fullRep, err := Each(ctx, db, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		full[pkg], all = cfg, append(all, pkg)
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, len(all), 2)
	keep := all[1]
	var names []string
	rep, err := Each(ctx, db, func(pkg string, cfg *declcfg.DeclarativeConfig) error {
		names = append(names, pkg)
		if pkg == keep {
			require.Equal(t, full[pkg], cfg)
		} else {
			require.Nil(t, cfg, pkg)
		}
		return nil
	}, WithUnread(func(pkg string) bool { return pkg != keep }))
	require.NoError(t, err)
	require.Equal(t, all, names, "every package is handed over, in order")
	require.Equal(t, 1, rep.Counts.Packages)
	require.Less(t, len(rep.Repairs), len(fullRep.Repairs), "the unread packages' repairs are not found")

	unread := WithUnread(func(string) bool { return true })
	_, _, err = Load(ctx, db, unread)
	require.EqualError(t, err, "load: WithUnread applies to Each only")
	_, err = Migrate(ctx, db, filepath.Join(t.TempDir(), "out"), unread)
	require.EqualError(t, err, "migrate: WithUnread applies to Each only")
}

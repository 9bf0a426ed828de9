package legacyquery

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/api"
)

// TestManifestsWithPackageSameAnswers serves every real database with and
// without ManifestsWithPackage and checks that the GetBundle answers of
// every ListBundles row (manifests, or the error) are the same: the
// manifests cached from a package read are the ones a GetBundle reads.
func TestManifestsWithPackageSameAnswers(t *testing.T) {
	dirs, err := os.ReadDir(fixtures)
	require.NoError(t, err)
	ctx := context.Background()
	for _, d := range dirs {
		t.Run(d.Name(), func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(fixtures, d.Name(), "index.db")
			plain, _ := serve(t, path)
			ahead, q := serve(t, path, ManifestsWithPackage(true))
			bs, err := plain.ListBundles(ctx, &api.ListBundlesRequest{})
			require.NoError(t, err)
			all, err := collect(bs.Recv)
			require.NoError(t, err)
			require.NotEmpty(t, all)
			for _, lb := range all {
				req := &api.GetBundleRequest{PkgName: lb.PackageName, ChannelName: lb.ChannelName, CsvName: lb.CsvName}
				want, wantErr := plain.GetBundle(ctx, req)
				got, gotErr := ahead.GetBundle(ctx, req)
				if wantErr != nil {
					assert.EqualError(t, gotErr, wantErr.Error(), lb.CsvName)
					continue
				}
				require.NoError(t, gotErr, lb.CsvName)
				assert.Empty(t, diff([]*api.Bundle{want}, []*api.Bundle{got}), lb.CsvName)
			}
			assert.Positive(t, q.cache.HitRate(), "GetBundle found the manifests the package read cached")
		})
	}
}

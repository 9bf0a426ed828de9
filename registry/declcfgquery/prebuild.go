package declcfgquery

import (
	"context"
	"fmt"
)

// PrebuildCache writes the serve cache of the catalog in dir: opm's JSON
// cache into cacheDir and olmcat's snapshot into SnapshotDir(cacheDir),
// and loads both back. ok is true only when each of them restores the
// catalog as the files are (olmcat build ships a serve cache only then,
// never a mismatched one): the snapshot through Load, opm's cache with
// its digest checked as opm serve --cache-enforce-integrity checks it.
func PrebuildCache(ctx context.Context, dir, cacheDir string) (ok bool, err error) {
	q, err := Load(ctx, dir, WithCacheDir(cacheDir))
	if err != nil {
		return false, fmt.Errorf("prebuild cache: %w", err)
	}
	q.Close()
	q, err = Load(ctx, dir, WithCacheDir(cacheDir))
	if err != nil {
		return false, fmt.Errorf("prebuild cache: %w", err)
	}
	defer q.Close()
	if !q.Stats().FromCache {
		return false, nil
	}
	if _, _, err := restoreOPMCache(dir, cacheDir); err != nil {
		return false, nil
	}
	return true, nil
}

package declcfgquery

import (
	"context"
	"fmt"
)

// PrebuildCache writes the snapshot of the catalog in dir to cacheDir and
// loads it back: ok is true only when that second load is served from the
// snapshot, i.e. the snapshot matches the files as they are (olmcat build
// ships a serve cache only then, never a mismatched one).
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
	return q.Stats().FromCache, nil
}

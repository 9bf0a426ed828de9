package image_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestSessionSharesConnections: the pulls of a session reuse one
// connection; without one, each pull dials its own (and leaves it idle).
// The registry speaks TLS: over plain HTTP, go-containerregistry tries
// HTTPS first on a new connection at every pull.
func TestSessionSharesConnections(t *testing.T) {
	const pulls = 4
	for _, shared := range []bool{false, true} {
		t.Run(fmt.Sprintf("session=%t", shared), func(t *testing.T) {
			reg := imagetest.New(t, imagetest.WithTLS())
			opts := []image.Option{image.WithCAFile(reg.CAFile(t, t.TempDir())), image.WithTempDir(t.TempDir()),
				image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json")))}
			if shared {
				s := image.NewSession(opts...)
				defer s.Close()
				opts = append(opts, image.WithSession(s))
			}
			var refs []string
			for i := range pulls {
				refs = append(refs, pushConfigs(t, reg, fmt.Sprintf("cat%d:v1", i)))
			}
			for i, ref := range refs {
				before := reg.Conns()
				u, err := image.ExtractCatalog(context.Background(), ref, opts...)
				require.NoError(t, err)
				require.NoError(t, u.Close())
				if shared && i > 0 {
					assert.Equal(t, before, reg.Conns(), "pull %d dialed again", i)
				} else {
					assert.Greater(t, reg.Conns(), before, "pull %d", i)
				}
			}
		})
	}
}

// TestSessionOpensCacheOnce: the first pull of a session opens the layer
// cache, sweeping what killed runs left (and telling it); the later pulls
// do not list the cache again, so a download abandoned meanwhile waits
// for the next run.
func TestSessionOpensCacheOnce(t *testing.T) {
	reg := imagetest.New(t)
	cache := t.TempDir()
	blobs := filepath.Join(cache, "blobs", "sha256")
	require.NoError(t, os.MkdirAll(blobs, 0o755))
	abandon := func() string {
		t.Helper()
		d, err := tempdir.Create(blobs, ".partial-")
		require.NoError(t, err)
		d.Release() // as the kernel does when the process dies
		return d.Path
	}
	first := abandon()
	var notes []string
	s := image.NewSession(extractOpts(t, "", image.WithCacheDir(cache), image.WithNotes(func(n string) { notes = append(notes, n) }))...)
	defer s.Close()
	var later string
	for i := range 3 {
		ref := pushConfigs(t, reg, fmt.Sprintf("cached%d:v1", i))
		u, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, t.TempDir(), image.WithCacheDir(cache), image.WithSession(s))...)
		require.NoError(t, err)
		require.NoError(t, u.Close())
		if i == 0 {
			later = abandon()
		}
	}
	assert.NoDirExists(t, first)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "removed abandoned temporary directory "+first)
	assert.DirExists(t, later, "swept once per session")
}

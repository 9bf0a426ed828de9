package image_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestSessionSharesConnections: the pulls of a session reuse one
// connection; without one, each pull dials its own (and leaves it idle).
// Over TLS the images are in different repositories; over plain HTTP,
// where go-containerregistry's ping of a registry tries HTTPS first on a
// new connection, they are tags of one repository, whose ping the
// session keeps.
func TestSessionSharesConnections(t *testing.T) {
	const pulls = 4
	for _, tc := range []struct {
		name   string
		tls    bool
		shared bool
	}{{"tls", true, false}, {"tls session", true, true}, {"http", false, false}, {"http session", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			var reg *imagetest.Registry
			opts := []image.Option{image.WithTempDir(t.TempDir()), image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json")))}
			repo := "cat%d:v1"
			if tc.tls {
				reg = imagetest.New(t, imagetest.WithTLS())
				opts = append(opts, image.WithCAFile(reg.CAFile(t, t.TempDir())))
			} else {
				reg = imagetest.New(t)
				opts = append(opts, image.WithUseHTTP(true))
				repo = "cat:v%d"
			}
			if tc.shared {
				s := image.NewSession(opts...)
				defer s.Close()
				opts = append(opts, image.WithSession(s))
			}
			var refs []string
			for i := range pulls {
				refs = append(refs, pushConfigs(t, reg, fmt.Sprintf(repo, i)))
			}
			for i, ref := range refs {
				before := reg.Conns()
				u, err := image.ExtractCatalog(context.Background(), ref, opts...)
				require.NoError(t, err)
				require.NoError(t, u.Close())
				if tc.shared && i > 0 {
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
	s.Close()
	ents, err := os.ReadDir(blobs)
	require.NoError(t, err)
	var partial []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".partial-") {
			partial = append(partial, filepath.Join(blobs, e.Name()))
		}
	}
	assert.Equal(t, []string{later}, partial, "Close removes the session's downloads directory")
}

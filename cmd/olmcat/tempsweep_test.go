package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

// TestImageTempDirsSwept: image extraction directories that a process
// could not remove (render killed by SIGPIPE when its reader went away,
// serve killed with SIGKILL) are removed by the next command that extracts
// an image into the same temporary directory; before, they stayed forever.
func TestImageTempDirsSwept(t *testing.T) {
	bin := buildBinary(t)
	reg := imagetest.New(t)
	_, flags := imageTestEnv(t)
	require.NoError(t, os.WriteFile(os.Getenv(image.RegistriesConfEnv), nil, 0o644))
	ref := pushDBImage(t, reg, "sweep/index:v1", filepath.Join(legacyFixtures, "community-bundles", "index.db"))
	tmp := t.TempDir()
	env := append(os.Environ(), "TMPDIR="+tmp)
	left := func() []string {
		l, _ := filepath.Glob(filepath.Join(tmp, "olmcat-image-*"))
		return l
	}

	// render IMAGE | head -c 10
	render := exec.Command(bin, append([]string{"render", ref}, flags...)...)
	render.Env = env
	out, err := render.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, render.Start())
	_, err = io.ReadFull(out, make([]byte, 10))
	require.NoError(t, err)
	out.Close()
	_ = render.Wait()
	require.NotEmpty(t, left(), "render killed by SIGPIPE could not clean up")
	stderr, code := runBinaryEnv(t, bin, env, append([]string{"render", ref}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, left())
	require.Contains(t, stderr, "removed abandoned temporary directory "+tmp)

	// serve IMAGE, killed -9 once serving.
	serve := exec.Command(bin, append([]string{"serve", ref, "--port", "0"}, flags...)...)
	serve.Env = env
	require.NoError(t, serve.Start())
	deadline := time.Now().Add(60 * time.Second)
	for len(left()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	require.NoError(t, serve.Process.Kill())
	_ = serve.Wait()
	require.NotEmpty(t, left(), "serve killed with SIGKILL could not clean up")
	stderr, code = runBinaryEnv(t, bin, env, append([]string{"render", ref}, flags...)...)
	require.Equal(t, 0, code, stderr)
	require.Empty(t, left())
}

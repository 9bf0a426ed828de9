package imagetest

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/stretchr/testify/require"
)

type basic struct{ user, password string }

func (b basic) Authorization() (*authn.AuthConfig, error) {
	return &authn.AuthConfig{Username: b.user, Password: b.password}, nil
}

func nopLogger() *log.Logger { return log.New(io.Discard, "", 0) }

// AuthFile writes a docker-config-format auth file (what podman and
// REGISTRY_AUTH_FILE use) in dir holding the registry's credentials.
func (r *Registry) AuthFile(t testing.TB, dir string) string {
	t.Helper()
	auth := base64.StdEncoding.EncodeToString([]byte(r.User + ":" + r.Password))
	data, err := json.Marshal(map[string]any{"auths": map[string]any{r.Host: map[string]string{"auth": auth}}})
	require.NoError(t, err)
	p := filepath.Join(dir, "auth.json")
	require.NoError(t, os.WriteFile(p, data, 0o600))
	return p
}

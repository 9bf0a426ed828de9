package image

import (
	"fmt"
	"os"

	"github.com/docker/cli/cli/config"
	"github.com/docker/cli/cli/config/types"
	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
)

// DefaultKeychain is the keychain podman and opm users expect: the auth
// file named by $REGISTRY_AUTH_FILE first (opm reads it before the docker
// config; naming a file that does not exist is an error on every lookup), then go-containerregistry's default keychain (docker config or
// $DOCKER_CONFIG, podman auth.json under $XDG_RUNTIME_DIR or
// $XDG_CONFIG_HOME). Credential helpers (credsStore, credHelpers) named in
// any of these files are run as docker runs them.
func DefaultKeychain() authn.Keychain {
	var chain []authn.Keychain
	if path := os.Getenv("REGISTRY_AUTH_FILE"); path != "" {
		chain = append(chain, authFileKeychain{path: path, required: true})
	}
	return authn.NewMultiKeychain(append(chain, authn.DefaultKeychain)...)
}

// AuthFileKeychain resolves credentials from one docker-config-format
// file (podman's auth.json has the same format). A missing file resolves
// every registry to anonymous.
func AuthFileKeychain(path string) authn.Keychain { return authFileKeychain{path: path} }

type authFileKeychain struct {
	path     string
	required bool // a missing file is an error
}

// Resolve implements authn.Keychain.
func (k authFileKeychain) Resolve(target authn.Resource) (authn.Authenticator, error) {
	f, err := os.Open(k.path)
	if os.IsNotExist(err) && !k.required {
		return authn.Anonymous, nil
	}
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("REGISTRY_AUTH_FILE names %s, which does not exist", k.path)
	}
	if err != nil {
		return nil, fmt.Errorf("read auth file %s: %w", k.path, err)
	}
	defer f.Close()
	cf, err := config.LoadFromReader(f)
	if err != nil {
		return nil, fmt.Errorf("read auth file %s: %w", k.path, err)
	}
	// Most specific key first: podman stores per-repository entries.
	for _, key := range []string{target.String(), target.RegistryStr()} {
		if key == name.DefaultRegistry {
			key = authn.DefaultAuthKey
		}
		cfg, err := cf.GetAuthConfig(key)
		if err != nil {
			return nil, fmt.Errorf("auth file %s: credentials for %s: %w", k.path, key, err)
		}
		cfg.ServerAddress = ""
		if cfg != (types.AuthConfig{}) {
			return authn.FromConfig(authn.AuthConfig{
				Username:      cfg.Username,
				Password:      cfg.Password,
				Auth:          cfg.Auth,
				IdentityToken: cfg.IdentityToken,
				RegistryToken: cfg.RegistryToken,
			}), nil
		}
	}
	return authn.Anonymous, nil
}

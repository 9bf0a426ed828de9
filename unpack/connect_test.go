package unpack

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConnect: cluster access is the kubeconfig named (its server and
// credentials), with the rate Launch needs; a kubeconfig that does not
// load is an error saying so.
func TestConnect(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "config")
	require.NoError(t, os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "https://api.example.invalid:6443"}}]
users: [{name: u, user: {token: secret}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
current-context: x
`), 0o600))
	cfg, err := RESTConfig(kubeconfig)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.invalid:6443", cfg.Host)
	assert.Equal(t, "secret", cfg.BearerToken)

	clients, err := Connect(kubeconfig, &bytes.Buffer{})
	require.NoError(t, err)
	assert.NotNil(t, clients.Dynamic)

	cms, err := ConnectConfigMaps(kubeconfig)
	require.NoError(t, err)
	assert.Equal(t, "https://api.example.invalid:6443", cms.Host)

	_, err = Connect(filepath.Join(t.TempDir(), "nowhere"), &bytes.Buffer{})
	assert.ErrorContains(t, err, "cluster access: ")
	_, err = ConnectConfigMaps(filepath.Join(t.TempDir(), "nowhere"))
	assert.ErrorContains(t, err, "cluster access: ")
}

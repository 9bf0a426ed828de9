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
	"github.com/operator-catalog/olmcat/internal/testutil/imagetest"
)

func pushConfigs(t *testing.T, reg *imagetest.Registry, repoTag string) string {
	t.Helper()
	return reg.Push(t, repoTag, imagetest.Image(t, configsLabels, nil, imagetest.Layer(t, E{Name: "configs/a.json", Body: "{}"})))
}

func TestPullBasicAuth(t *testing.T) {
	reg := imagetest.New(t, imagetest.WithBasicAuth("alice", "s3cret"))
	ref := pushConfigs(t, reg, "private/cat:v1")
	dir := t.TempDir()

	// Without credentials: a clear error, nothing left behind.
	tmp := t.TempDir()
	_, err := image.ExtractCatalog(context.Background(), ref, extractOpts(t, tmp)...)
	require.ErrorIs(t, err, image.ErrUnauthorized)
	require.ErrorContains(t, err, "REGISTRY_AUTH_FILE")
	assertEmpty(t, tmp)

	// REGISTRY_AUTH_FILE is read by the default keychain, before any
	// docker config.
	t.Setenv("REGISTRY_AUTH_FILE", reg.AuthFile(t, dir))
	t.Setenv("DOCKER_CONFIG", filepath.Join(dir, "no-docker-config"))
	u, err := image.ExtractCatalog(context.Background(), ref, image.WithUseHTTP(true), image.WithTempDir(tmp))
	require.NoError(t, err)
	u.Close()
}

func TestPullTLS(t *testing.T) {
	reg := imagetest.New(t, imagetest.WithTLS())
	ref := pushConfigs(t, reg, "tls/cat:v1")
	ca := reg.CAFile(t, t.TempDir())
	noKeys := image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json")))
	for _, tc := range []struct {
		name    string
		opts    []image.Option
		wantErr string
	}{
		{"untrusted certificate", nil, "certificate"},
		{"ca file", []image.Option{image.WithCAFile(ca)}, ""},
		{"skip verify", []image.Option{image.WithSkipTLSVerify(true)}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u, err := image.ExtractCatalog(context.Background(), ref, append(tc.opts, noKeys, image.WithTempDir(t.TempDir()))...)
			if tc.wantErr == "" {
				require.NoError(t, err)
				u.Close()
				return
			}
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
}

func TestPullRegistriesConfMirror(t *testing.T) {
	reg := imagetest.New(t)
	ref := pushConfigs(t, reg, "mirrored/team/cat:v1")
	conf := filepath.Join(t.TempDir(), "registries.conf")
	data := fmt.Sprintf(`
[[registry]]
prefix = "catalogs.invalid/team"
location = "catalogs.invalid/team"
[[registry.mirror]]
location = "%[1]s/mirrored/team"
insecure = true

[[registry]]
location = "blocked.invalid"
blocked = true
`, reg.Host)
	require.NoError(t, os.WriteFile(conf, []byte(data), 0o644))
	rc, err := image.LoadRegistriesConf(conf, false)
	require.NoError(t, err)
	noKeys := image.WithKeychain(image.AuthFileKeychain(filepath.Join(t.TempDir(), "none.json")))
	u, err := image.ExtractCatalog(context.Background(), "catalogs.invalid/team/cat:v1", image.WithRegistriesConf(rc), noKeys, image.WithTempDir(t.TempDir()))
	require.NoError(t, err)
	assert.Equal(t, ref, u.Pulled.From.String(), "pulled from the mirror")
	u.Close()
	_, err = image.ExtractCatalog(context.Background(), "blocked.invalid/x/cat:v1", image.WithRegistriesConf(rc), noKeys)
	assert.ErrorIs(t, err, image.ErrBlocked)
}

func TestRegistriesConfEndpoints(t *testing.T) {
	rc := &image.RegistriesConf{Registries: []image.Registry{
		{Prefix: "a.test/team", Location: "internal.test/a", Mirrors: []image.Mirror{{Location: "m1.test/a", Insecure: true}, {Location: "m2.test/a", PullFromMirror: "digest-only"}}},
		{Location: "a.test", Insecure: true},
		{Prefix: "*.wild.test", Mirrors: []image.Mirror{{Location: "mw.test"}}},
		{Location: "d.test", MirrorByDigestOnly: true, Mirrors: []image.Mirror{{Location: "md.test"}}},
	}}
	for _, tc := range []struct {
		ref  string
		want []string
	}{
		{"a.test/team/cat:v1", []string{"m1.test/a/cat:v1 insecure", "internal.test/a/cat:v1"}},
		{"a.test/team/cat@sha256:00", []string{"m1.test/a/cat@sha256:00 insecure", "m2.test/a/cat@sha256:00", "internal.test/a/cat@sha256:00"}},
		{"a.test/teamster/cat:v1", []string{"a.test/teamster/cat:v1 insecure"}},
		{"x.wild.test/cat:v1", []string{"mw.test/cat:v1", "x.wild.test/cat:v1"}},
		{"d.test/cat:v1", []string{"d.test/cat:v1"}},
		{"d.test/cat@sha256:00", []string{"md.test/cat@sha256:00", "d.test/cat@sha256:00"}},
		{"other.test/cat:v1", []string{"other.test/cat:v1"}},
	} {
		eps, err := rc.Endpoints(tc.ref)
		require.NoError(t, err)
		var got []string
		for _, e := range eps {
			s := e.Ref
			if e.Insecure {
				s += " insecure"
			}
			got = append(got, s)
		}
		assert.Equal(t, tc.want, got, tc.ref)
	}
}

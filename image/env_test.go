package image

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSettingsOptions(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("REGISTRY_AUTH_FILE", "")
	t.Setenv(RegistriesConfEnv, "")
	conf := filepath.Join(home, "registries.conf")
	require.NoError(t, os.WriteFile(conf, []byte("[[registry]]\nlocation = \"mirror.test\"\ninsecure = true\n"), 0o644))

	tests := []struct {
		name    string
		s       Settings
		env     map[string]string
		wantErr string
		check   func(t *testing.T, o *options)
	}{
		{name: "defaults: the user cache dir, an optional registries.conf", s: Settings{UserAgent: "ua", Limits: DefaultLimits},
			check: func(t *testing.T, o *options) {
				assert.Equal(t, filepath.Join(home, "cache", "olmcat", "images"), o.cacheDir)
				assert.Equal(t, "/etc/containers/registries.conf", o.registries.Path)
				assert.Equal(t, "ua", o.userAgent)
			}},
		{name: "the user's choices", s: Settings{UseHTTP: true, CAFile: "ca.pem", CacheDir: "c", RegistriesConf: conf},
			check: func(t *testing.T, o *options) {
				assert.True(t, o.useHTTP)
				assert.Equal(t, "ca.pem", o.caFile)
				assert.Equal(t, "c", o.cacheDir)
				assert.Equal(t, conf, o.registries.Path)
				assert.Len(t, o.registries.Registries, 1)
			}},
		{name: "no cache", s: Settings{NoCache: true, CacheDir: "c"},
			check: func(t *testing.T, o *options) { assert.Empty(t, o.cacheDir) }},
		{name: "the environment's registries.conf", env: map[string]string{RegistriesConfEnv: conf},
			check: func(t *testing.T, o *options) { assert.Equal(t, conf, o.registries.Path) }},
		{name: "a registries.conf the environment names must exist", env: map[string]string{RegistriesConfEnv: conf + ".missing"},
			wantErr: "read registries.conf"},
		{name: "a registries.conf the user names must exist", s: Settings{RegistriesConf: conf + ".missing"},
			wantErr: "read registries.conf"},
		{name: "REGISTRY_AUTH_FILE must exist", env: map[string]string{"REGISTRY_AUTH_FILE": conf + ".missing"},
			wantErr: "REGISTRY_AUTH_FILE names " + conf + ".missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			opts, err := tt.s.Options()
			if tt.wantErr != "" {
				assert.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			tt.check(t, makeOptions(opts))
		})
	}
}

func TestSourceDateEpoch(t *testing.T) {
	for _, tc := range []struct {
		env     string
		want    time.Time
		wantErr string
	}{
		{env: "", want: time.Time{}},
		{env: "1700000000", want: time.Unix(1700000000, 0)},
		{env: "2023-11-14", wantErr: `SOURCE_DATE_EPOCH "2023-11-14": want seconds since the epoch`},
	} {
		t.Run(tc.env, func(t *testing.T) {
			t.Setenv("SOURCE_DATE_EPOCH", tc.env)
			got, err := SourceDateEpoch()
			if tc.wantErr != "" {
				assert.EqualError(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.True(t, tc.want.Equal(got), "got %v", got)
		})
	}
}

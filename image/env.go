package image

import (
	"fmt"
	"os"
	"strconv"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// RegistriesConfEnv names the registries.conf podman reads; Settings.Options
// reads the same file.
const RegistriesConfEnv = "CONTAINERS_REGISTRIES_CONF"

// Settings are the image settings a program's user chooses (a command
// line's), before the environment fills in what they leave out.
type Settings struct {
	// UseHTTP, SkipTLSVerify and CAFile say how to reach registries
	// (WithUseHTTP, WithSkipTLSVerify, WithCAFile).
	UseHTTP       bool
	SkipTLSVerify bool
	CAFile        string
	// Platform is picked from multi-platform images (WithPlatform).
	Platform v1.Platform
	// Source is the catalog read of an image carrying both (WithSource).
	Source Source
	// Limits bound an image input (WithLimits).
	Limits Limits
	// UserAgent is sent to registries (WithUserAgent).
	UserAgent string
	// CacheDir keeps pulled layers; empty: DefaultCacheDir. NoCache keeps
	// none.
	CacheDir string
	NoCache  bool
	// RegistriesConf is the registries.conf read; empty: the file podman
	// reads (DefaultRegistriesConfPath), which may be missing unless
	// RegistriesConfEnv names it.
	RegistriesConf string
}

// Options returns the image options of s, with the environment's
// defaults: the layer cache in the user cache directory, the
// registries.conf podman reads. A REGISTRY_AUTH_FILE naming no file is an
// error here, before anything is pulled (DefaultKeychain would fail every
// lookup with it).
func (s Settings) Options() ([]Option, error) {
	if path := os.Getenv("REGISTRY_AUTH_FILE"); path != "" {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("REGISTRY_AUTH_FILE names %s: %w", path, err)
		}
	}
	opts := []Option{
		WithUseHTTP(s.UseHTTP), WithSkipTLSVerify(s.SkipTLSVerify), WithCAFile(s.CAFile),
		WithPlatform(s.Platform), WithSource(s.Source), WithUserAgent(s.UserAgent), WithLimits(s.Limits),
	}
	if !s.NoCache {
		dir := s.CacheDir
		if dir == "" {
			var err error
			if dir, err = DefaultCacheDir(); err != nil {
				return nil, err
			}
		}
		opts = append(opts, WithCacheDir(dir))
	}
	confPath, explicit := s.RegistriesConf, s.RegistriesConf != ""
	if !explicit {
		home, _ := os.UserHomeDir()
		confPath = DefaultRegistriesConfPath(os.Getenv(RegistriesConfEnv), home)
		explicit = os.Getenv(RegistriesConfEnv) != ""
	}
	conf, err := LoadRegistriesConf(confPath, !explicit)
	if err != nil {
		return nil, err
	}
	return append(opts, WithRegistriesConf(conf)), nil
}

// SourceDateEpoch is the time the SOURCE_DATE_EPOCH environment variable
// sets (reproducible-builds.org), for WithCreated: every time of a build
// fixed, so that the same input gives the same digest. Unset, it is the
// zero time.
func SourceDateEpoch() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Time{}, nil
	}
	sec, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since the epoch", v)
	}
	return time.Unix(sec, 0), nil
}

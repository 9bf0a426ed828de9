package image

import (
	"fmt"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// DefaultPlatform is the platform picked from an image index when none is
// asked for. It does not follow the host, so the same command reads the
// same catalog everywhere.
var DefaultPlatform = v1.Platform{OS: "linux", Architecture: "amd64"}

// Option configures how images are pulled and pushed.
type Option func(*options)

type options struct {
	useHTTP        bool
	skipTLSVerify  bool
	caFile         string
	platform       v1.Platform
	cacheDir       string
	registries     *RegistriesConf
	keychain       authn.Keychain
	source         Source
	userAgent      string
	preferSQLite   bool
	progress       Progress
	tempDir        string
	limits         Limits
	note           func(string)
	session        *Session
	bundleInMemory int64
}

func makeOptions(opts []Option) *options {
	o := &options{platform: DefaultPlatform, keychain: DefaultKeychain(), limits: DefaultLimits}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// WithUseHTTP allows plain HTTP to every registry (opm's --use-http).
func WithUseHTTP(b bool) Option { return func(o *options) { o.useHTTP = b } }

// WithSkipTLSVerify accepts any TLS certificate (opm's --skip-tls-verify).
func WithSkipTLSVerify(b bool) Option { return func(o *options) { o.skipTLSVerify = b } }

// WithCAFile trusts the PEM certificates in path, beside the system roots.
func WithCAFile(path string) Option { return func(o *options) { o.caFile = path } }

// WithPlatform picks p from image indexes (default DefaultPlatform).
func WithPlatform(p v1.Platform) Option { return func(o *options) { o.platform = p } }

// WithCacheDir keeps pulled layers in an OCI layout at dir, by digest, so
// a later pull of the same layer makes no request for it. An empty dir
// means no cache.
func WithCacheDir(dir string) Option { return func(o *options) { o.cacheDir = dir } }

// WithRegistriesConf redirects pulls through the mirrors of c and refuses
// its blocked registries. Nil means no redirection.
func WithRegistriesConf(c *RegistriesConf) Option { return func(o *options) { o.registries = c } }

// WithKeychain replaces the default keychain (DefaultKeychain).
func WithKeychain(k authn.Keychain) Option { return func(o *options) { o.keychain = k } }

// WithSource chooses which catalog of an image carrying both a database
// and a configs label is read (default SourceAuto: see FindCatalog).
func WithSource(s Source) Option { return func(o *options) { o.source = s } }

// WithProgress reports the layer bytes extractions read to p.
func WithProgress(p Progress) Option { return func(o *options) { o.progress = p } }

// WithNotes passes what a pull repaired (a damaged cached layer fetched
// again) to note, one sentence per call.
func WithNotes(note func(string)) Option { return func(o *options) { o.note = note } }

// WithUserAgent sets the User-Agent sent to registries.
func WithUserAgent(ua string) Option { return func(o *options) { o.userAgent = ua } }

// ParsePlatform parses "os/arch[/variant]" (for example linux/arm64/v8).
func ParsePlatform(s string) (v1.Platform, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return v1.Platform{}, fmt.Errorf("platform %q: want os/arch[/variant], for example linux/amd64", s)
	}
	p := v1.Platform{OS: parts[0], Architecture: parts[1]}
	if len(parts) == 3 {
		p.Variant = parts[2]
	}
	return p, nil
}

// ParsePlatforms parses a comma-separated list of platforms.
func ParsePlatforms(s string) ([]v1.Platform, error) {
	var ps []v1.Platform
	for _, f := range strings.Split(s, ",") {
		p, err := ParsePlatform(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// platformString formats p as os/arch[/variant].
func platformString(p v1.Platform) string {
	s := p.OS + "/" + p.Architecture
	if p.Variant != "" {
		s += "/" + p.Variant
	}
	return s
}

package image

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"
)

// RegistriesConf is the part of containers-registries.conf(5) version 2
// that redirects and restricts pulls: [[registry]] tables with prefix,
// location, insecure, blocked, mirror-by-digest-only and [[registry.mirror]]
// tables. It is how air-gapped users point pulls at their mirrors, and
// podman and opm read the same file.
type RegistriesConf struct {
	// Path is the file the configuration was read from.
	Path       string     `toml:"-"`
	Registries []Registry `toml:"registry"`
}

// Registry is one [[registry]] table.
type Registry struct {
	// Prefix selects the references this table applies to (default:
	// Location). "*.example.com" matches every subdomain.
	Prefix string `toml:"prefix"`
	// Location is where matching references are pulled from; the part of
	// the reference after Prefix is appended to it.
	Location string `toml:"location"`
	// Insecure allows plain HTTP and unverified TLS for Location.
	Insecure bool `toml:"insecure"`
	// Blocked refuses every pull of a matching reference.
	Blocked bool `toml:"blocked"`
	// MirrorByDigestOnly uses the mirrors only for references by digest.
	MirrorByDigestOnly bool `toml:"mirror-by-digest-only"`
	// Mirrors are tried in order before Location.
	Mirrors []Mirror `toml:"mirror"`
}

// Mirror is one [[registry.mirror]] table.
type Mirror struct {
	Location string `toml:"location"`
	Insecure bool   `toml:"insecure"`
	// PullFromMirror is all (default), digest-only or tag-only.
	PullFromMirror string `toml:"pull-from-mirror"`
}

// Endpoint is one place a reference may be pulled from.
type Endpoint struct {
	// Ref is the rewritten reference string.
	Ref string
	// Insecure allows plain HTTP and unverified TLS for this endpoint.
	Insecure bool
	// Mirror is true for a mirror, false for the registry's own location.
	Mirror bool
}

// ErrBlocked is returned for references registries.conf blocks.
var ErrBlocked = errors.New("registry blocked by registries.conf")

// DefaultRegistriesConfPath is the file podman reads: $CONTAINERS_REGISTRIES_CONF,
// else $HOME/.config/containers/registries.conf if it exists, else
// /etc/containers/registries.conf. The caller reads the environment and
// passes it here; a result that does not exist means no configuration.
func DefaultRegistriesConfPath(envPath, home string) string {
	if envPath != "" {
		return envPath
	}
	if home != "" {
		p := filepath.Join(home, ".config", "containers", "registries.conf")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "/etc/containers/registries.conf"
}

// LoadRegistriesConf reads a registries.conf file. A missing file gives
// an empty configuration and no error when optional is true.
func LoadRegistriesConf(path string, optional bool) (*RegistriesConf, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if optional && errors.Is(err, fs.ErrNotExist) {
			return &RegistriesConf{Path: path}, nil
		}
		return nil, fmt.Errorf("read registries.conf: %w", err)
	}
	c := &RegistriesConf{Path: path}
	if err := toml.Unmarshal(data, c); err != nil {
		return nil, fmt.Errorf("parse registries.conf %s: %w", path, err)
	}
	for i, r := range c.Registries {
		if r.Prefix == "" && r.Location == "" {
			return nil, fmt.Errorf("registries.conf %s: [[registry]] #%d has neither prefix nor location", path, i+1)
		}
		if strings.HasPrefix(r.Prefix, "*.") && r.Location != "" {
			return nil, fmt.Errorf("registries.conf %s: [[registry]] #%d: wildcard prefix %q cannot have a location", path, i+1, r.Prefix)
		}
	}
	return c, nil
}

// Endpoints lists where ref (a full reference string such as
// host/repo:tag) is pulled from, in order: the mirrors of the
// longest-matching [[registry]], then its location. Without a match the
// only endpoint is ref itself. A blocked match is ErrBlocked.
func (c *RegistriesConf) Endpoints(ref string) ([]Endpoint, error) {
	reg, matched := c.match(ref)
	if reg == nil {
		return []Endpoint{{Ref: ref}}, nil
	}
	if reg.Blocked {
		return nil, fmt.Errorf("pull %s: %w (%s, prefix %q)", ref, ErrBlocked, c.Path, reg.prefix())
	}
	rest := ref[len(matched):]
	byDigest := strings.Contains(ref, "@")
	var eps []Endpoint
	for _, m := range reg.Mirrors {
		if reg.MirrorByDigestOnly && !byDigest ||
			m.PullFromMirror == "digest-only" && !byDigest ||
			m.PullFromMirror == "tag-only" && byDigest {
			continue
		}
		eps = append(eps, Endpoint{Ref: m.Location + rest, Insecure: m.Insecure, Mirror: true})
	}
	loc := reg.Location
	if loc == "" {
		loc = matched
	}
	return append(eps, Endpoint{Ref: loc + rest, Insecure: reg.Insecure}), nil
}

func (r *Registry) prefix() string {
	if r.Prefix != "" {
		return r.Prefix
	}
	return r.Location
}

// match finds the [[registry]] with the longest prefix matching ref, and
// the part of ref that prefix matched.
func (c *RegistriesConf) match(ref string) (*Registry, string) {
	var best *Registry
	bestLen := -1
	var bestMatched string
	for i := range c.Registries {
		r := &c.Registries[i]
		p := r.prefix()
		matched := ""
		if wild, ok := strings.CutPrefix(p, "*"); ok {
			host, _, _ := strings.Cut(ref, "/")
			if strings.HasSuffix(host, wild) {
				matched = host
			}
		} else if strings.HasPrefix(ref, p) && (len(ref) == len(p) || strings.ContainsRune("/:@", rune(ref[len(p)]))) {
			matched = p
		}
		if matched != "" && len(p) > bestLen {
			best, bestLen, bestMatched = r, len(p), matched
		}
	}
	return best, bestMatched
}

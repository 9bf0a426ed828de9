package image

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// ErrNotFound is returned when a registry has no such repository or tag.
var ErrNotFound = errors.New("image not found")

// ErrUnauthorized is returned when a registry refuses the credentials (or
// their absence).
var ErrUnauthorized = errors.New("unauthorized")

// Pulled is an image chosen for the requested platform, with where it
// came from. Its layers are fetched lazily, through the layer cache.
type Pulled struct {
	// Image is the platform's image.
	Image v1.Image
	// Ref is the reference as asked for.
	Ref string
	// From is the reference actually pulled (a mirror's, if one served it).
	From name.Reference
	// Digest is the manifest digest of Image.
	Digest v1.Hash
	// Index is the digest of the image index Image was chosen from, if any.
	Index *v1.Hash

	opts   *options
	local  bool      // from an OCI layout or archive: no layer cache
	closer io.Closer // the archive file, if any
}

// Close releases the files a local image is read from.
func (p *Pulled) Close() error {
	if p == nil || p.closer == nil {
		return nil
	}
	return p.closer.Close()
}

// Pull resolves ref through registries.conf, fetches its manifest (and
// the index's manifest for multi-platform images, picking the requested
// platform) and returns the image. Layers are not fetched yet.
func Pull(ctx context.Context, ref string, opts ...Option) (*Pulled, error) {
	return pull(ctx, ref, makeOptions(opts))
}

func pull(ctx context.Context, ref string, o *options) (*Pulled, error) {
	if l, ok := ParseLayout(ref); ok {
		return openLayout(l, o)
	}
	ref = strings.TrimPrefix(ref, ImagePrefix)
	eps := []Endpoint{{Ref: ref}}
	if o.registries != nil {
		var err error
		if eps, err = o.registries.Endpoints(ref); err != nil {
			return nil, err
		}
	}
	var errs []error
	for _, ep := range eps {
		p, err := pullFrom(ctx, ref, ep, o)
		if err == nil {
			return p, nil
		}
		if len(eps) == 1 {
			return nil, err
		}
		errs = append(errs, fmt.Errorf("from %s: %w", ep.Ref, err))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("pull %s: every endpoint of registries.conf failed: %w", ref, errors.Join(errs...))
}

func pullFrom(ctx context.Context, asked string, ep Endpoint, o *options) (*Pulled, error) {
	ro, nref, err := o.remoteOptions(ctx, ep.Ref, ep.Insecure)
	if err != nil {
		return nil, err
	}
	desc, err := remote.Get(nref, ro...)
	if err != nil {
		return nil, o.remoteError("pull", ep.Ref, err)
	}
	p := &Pulled{Ref: asked, From: nref, opts: o}
	if !desc.MediaType.IsIndex() {
		img, err := desc.Image()
		if err != nil {
			return nil, fmt.Errorf("pull %s: %w", ep.Ref, err)
		}
		p.Image, p.Digest = img, desc.Digest
		return p, nil
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", ep.Ref, err)
	}
	if err := p.choosePlatform(idx, desc.Digest, ep.Ref); err != nil {
		return nil, err
	}
	return p, nil
}

// choosePlatform sets p's image to the one of the index idx (digest d)
// for the options' platform; where names the index in errors.
func (p *Pulled) choosePlatform(idx v1.ImageIndex, d v1.Hash, where string) error {
	o := p.opts
	im, err := idx.IndexManifest()
	if err != nil {
		return fmt.Errorf("pull %s: read index: %w", where, err)
	}
	var present []string
	for _, m := range im.Manifests {
		if m.Platform == nil {
			continue
		}
		if m.Platform.Satisfies(o.platform) {
			img, err := idx.Image(m.Digest)
			if err != nil {
				return fmt.Errorf("pull %s: platform %s: %w", where, platformString(o.platform), o.remoteError("pull", where, err))
			}
			p.Image, p.Digest, p.Index = img, m.Digest, &d
			return nil
		}
		present = append(present, platformString(*m.Platform))
	}
	return fmt.Errorf("pull %s: no image for platform %s in the index; platforms present: %s (choose one of them)",
		where, platformString(o.platform), strings.Join(present, ", "))
}

// remoteOptions parses ref and builds the remote options for one endpoint.
func (o *options) remoteOptions(ctx context.Context, ref string, insecure bool) ([]remote.Option, name.Reference, error) {
	var nopts []name.Option
	if o.useHTTP || insecure {
		nopts = append(nopts, name.Insecure)
	}
	nref, err := name.ParseReference(ref, nopts...)
	if err != nil {
		return nil, nil, fmt.Errorf("image reference %q: %w", ref, err)
	}
	ro := []remote.Option{
		remote.WithContext(ctx),
		remote.WithAuthFromKeychain(o.keychain),
		remote.WithPlatform(o.platform),
	}
	if o.userAgent != "" {
		ro = append(ro, remote.WithUserAgent(o.userAgent))
	}
	if st, ok, err := o.session.transport(o, insecure); ok {
		if err != nil {
			return nil, nil, err
		}
		return append(ro, remote.WithTransport(st.tr), remote.Reuse(st.puller)), nref, nil
	}
	tr, err := o.newTransport(insecure)
	if err != nil {
		return nil, nil, err
	}
	return append(ro, remote.WithTransport(tr)), nref, nil
}

// newTransport is http.DefaultTransport with the TLS settings of the
// options.
func (o *options) newTransport(insecure bool) (http.RoundTripper, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if o.skipTLSVerify || insecure {
		cfg.InsecureSkipVerify = true
	}
	if o.caFile != "" {
		pem, err := os.ReadFile(o.caFile)
		if err != nil {
			return nil, fmt.Errorf("read CA file: %w", err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA file %s: no PEM certificate in it", o.caFile)
		}
		cfg.RootCAs = pool
	}
	tr.TLSClientConfig = cfg
	return tr, nil
}

// ErrPlainHTTP is returned when a registry reached over HTTPS answers in
// plain HTTP (allowed by WithUseHTTP or registries.conf insecure).
var ErrPlainHTTP = errors.New("the registry speaks plain HTTP, not HTTPS")

// remoteError turns registry answers users meet often into plain errors
// that still wrap the registry's; verb is pull or push.
func (o *options) remoteError(verb, ref string, err error) error {
	var te *transport.Error
	if errors.As(err, &te) {
		switch te.StatusCode {
		case http.StatusNotFound:
			return fmt.Errorf("%s %s: %w: no such repository, tag or digest (%v)", verb, ref, ErrNotFound, err)
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Errorf("%s %s: %w: %s (%v)", verb, ref, ErrUnauthorized, o.credentialsFound(ref), err)
		}
	}
	if strings.Contains(err.Error(), "server gave HTTP response to HTTPS client") {
		return fmt.Errorf("%s %s: %w (%v)", verb, ref, ErrPlainHTTP, err)
	}
	return fmt.Errorf("%s %s: %w", verb, ref, err)
}

// credentialsFound says whether the keychain had credentials for ref,
// for a refusal: none found, or found and refused.
func (o *options) credentialsFound(ref string) string {
	const login = "log in (docker login / podman login) or point REGISTRY_AUTH_FILE at an auth file"
	nref, err := name.ParseReference(ref, name.WeakValidation)
	if err != nil {
		return "the registry refused access; " + login
	}
	host := nref.Context().RegistryStr()
	auth, err := o.keychain.Resolve(nref.Context())
	if err != nil {
		return fmt.Sprintf("the registry refused access, and reading credentials for %s failed: %v", host, err)
	}
	if auth == authn.Anonymous {
		return fmt.Sprintf("no credentials for %s were found (REGISTRY_AUTH_FILE, docker config, podman auth.json, credential helpers); %s", host, login)
	}
	return fmt.Sprintf("the registry refused the credentials found for %s; %s again", host, login)
}

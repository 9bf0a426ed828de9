package serve

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
	"github.com/operator-catalog/olmcat/registry/source"
)

// listenHTTP binds the catalogd HTTP API's address, before anything is
// loaded (a busy address fails at once).
func (s *Serve) listenHTTP() (net.Listener, error) {
	lis, err := net.Listen("tcp", s.HTTPAddr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s for the catalogd HTTP API: %w", s.HTTPAddr, err)
	}
	return lis, nil
}

// serveHTTP serves the catalog in (nil when it did not open: openErr is
// why, and the catalog is served as not loaded) over catalogd's HTTP API
// on lis until ctx ends, with the gRPC side's watch and reload settings.
func (s *Serve) serveHTTP(ctx context.Context, lis net.Listener, in *input.Input, openErr error, logger *slog.Logger) error {
	c := catalogdhttp.Config{Name: s.CatalogName, HoldOnLoadError: s.HoldOnLoadError, Logger: logger}
	if in == nil {
		c.Source = func(context.Context, catalogdhttp.Emit) error { return openErr }
	} else {
		c.Source = CatalogdSource(in)
		if c.Name == "" {
			c.Name = defaultCatalogName(in)
		}
		if s.WatchInterval > 0 {
			c.Fingerprint, c.Interval, c.Reload = source.Fingerprint(in, s.CacheDir), s.WatchInterval, s.Reload
		}
	}
	if c.Name == "" {
		c.Name = catalogdhttp.DefaultName(s.Catalog, false)
	}
	return catalogdhttp.Serve(ctx, lis, c)
}

// CatalogdSource is the catalog catalogd would serve of the resolved
// input in: the files of a declarative config, the lossless conversion of
// a legacy index (what olmcat migrate writes). Serve's HTTP API serves it
// and parity compares a catalogd server with it.
func CatalogdSource(in *input.Input) catalogdhttp.Source {
	switch in.Kind {
	case input.KindDeclcfg:
		return catalogdhttp.DirSource(in.Path)
	case input.KindDeclcfgFile:
		return catalogdhttp.FileSource(in.Path)
	case input.KindSQLite:
		return sqliteSource(in.Path)
	}
	return func(context.Context, catalogdhttp.Emit) error {
		return fmt.Errorf("%s is a %s: not a catalog the catalogd HTTP API serves", in.Ref, in.Kind)
	}
}

// defaultCatalogName is the catalog's name in the URLs when none is
// given: the image repository's or the path's base name, made a DNS-1123
// name.
func defaultCatalogName(in *input.Input) string {
	if in.Image != "" {
		return catalogdhttp.DefaultName(in.Image, true)
	}
	ref := in.Ref
	if abs, err := filepath.Abs(ref); err == nil {
		ref = abs
	}
	return catalogdhttp.DefaultName(ref, false)
}

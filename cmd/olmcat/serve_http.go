package main

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/action/serve"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// httpFlags are the flags of olmcat serve for catalogd's HTTP API.
type httpFlags struct {
	addr        string
	catalogName string
}

// addHTTPFlags registers the catalogd HTTP API's flags.
func (f *serveFlags) addHTTPFlags(fl *pflag.FlagSet) {
	fl.StringVar(&f.http.addr, "http", "", "also serve catalogd's HTTP API (/catalogs/<name>/api/v1/all and metas, /healthz) on this [host]:port (port 0 picks a free one)")
	fl.StringVar(&f.http.catalogName, "catalog-name", "", "the catalog's name in the --http URLs (a DNS-1123 subdomain; default: the catalog directory's or image repository's base name)")
}

// checkHTTP checks the flags of the two servers: -p -1 turns the gRPC
// API off, which needs --http.
func (f *serveFlags) checkHTTP() error {
	if f.port < -1 || f.port > 65535 {
		return usageError(fmt.Errorf("--port %d: want 0..65535, or -1 for no gRPC server (with --http)", f.port))
	}
	if f.port == -1 && f.http.addr == "" {
		return usageError(errors.New("--port -1 turns the gRPC server off: serve the catalogd HTTP API (--http) instead"))
	}
	if f.http.catalogName != "" {
		if err := catalogdhttp.ValidName(f.http.catalogName); err != nil {
			return usageError(fmt.Errorf("--catalog-name %q: %w", f.http.catalogName, err))
		}
	}
	return nil
}

// applyHTTP sets the servers' options of s.
func (f *serveFlags) applyHTTP(s *serve.Serve) {
	s.NoGRPC = f.port == -1
	s.HTTPAddr, s.CatalogName = f.http.addr, f.http.catalogName
}

package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/source"
)

// serverFlags are the flags of serve and registry serve that say how the
// server watches its catalog and bounds its clients.
type serverFlags struct {
	watchInterval time.Duration
	reload        bool
}

// addServerFlags registers the server flags.
func (f *serveFlags) addServerFlags(fl *pflag.FlagSet) {
	s := &f.server
	fl.DurationVar(&s.watchInterval, "watch-interval", time.Second, "how often the served files are checked for changes (a stat of each file; 0 disables the watch)")
	fl.BoolVar(&s.reload, "reload", false, "when the served files change, load them again in the background and serve the new catalog once loaded (NOT_SERVING meanwhile)")
}

// options are the registry options the flags give for the catalog in.
func (s *serverFlags) options(in source.Input, cacheDir string) []registry.Option {
	var opts []registry.Option
	if s.watchInterval > 0 {
		opts = append(opts, registry.WithWatch(source.Fingerprint(in, cacheDir), s.watchInterval, s.reload))
	}
	return opts
}

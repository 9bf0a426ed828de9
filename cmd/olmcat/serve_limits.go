package main

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/registry"
)

// serverFlags are the flags of serve and registry serve that say how the
// server watches its catalog and bounds its clients.
type serverFlags struct {
	watchInterval time.Duration
	reload        bool
	limits        registry.Limits
	sendBufferMB  int
}

// addServerFlags registers the server flags.
func (f *serveFlags) addServerFlags(fl *pflag.FlagSet) {
	s := &f.server
	fl.DurationVar(&s.watchInterval, "watch-interval", time.Second, "how often the served files are checked for changes (a stat of each file; 0 disables the watch)")
	fl.BoolVar(&s.reload, "reload", false, "when the served files change, load them again in the background and serve the new catalog once loaded (NOT_SERVING meanwhile)")
	l := &s.limits
	fl.IntVar(&l.MaxConnections, "max-connections", 256, "client connections served at once; more wait until one closes (0: no limit)")
	fl.Uint32Var(&l.MaxStreams, "max-streams", 100, "calls in flight per connection (HTTP/2 MAX_CONCURRENT_STREAMS; 0: no limit)")
	fl.DurationVar(&l.IdleTimeout, "idle-timeout", 10*time.Minute, "close a connection that has had no call for this long (0: never)")
	fl.DurationVar(&l.KeepaliveTime, "keepalive-time", time.Minute, "ping a client whose connection has been silent this long")
	fl.DurationVar(&l.KeepaliveTimeout, "keepalive-timeout", 20*time.Second, "close the connection when a ping is not answered within this")
	fl.DurationVar(&l.MinPingInterval, "keepalive-min-time", 10*time.Second, "disconnect clients that ping more often than this")
	fl.IntVar(&s.sendBufferMB, "send-buffer-mb", 16, "MiB of large streamed messages (ListBundles with inline manifests) held for all clients at once; clients that do not read hold at most half (0: no limit)")
	fl.DurationVar(&l.SendStall, "send-stall-timeout", 5*time.Second, "close the connection of a client that leaves a large message unread this long while others wait for the send buffer (0: never)")
}

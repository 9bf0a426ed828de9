package registry

import (
	"net"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/keepalive"
)

// Limits bound what clients can make Serve and ServeLoading hold. A zero
// field leaves that bound out (gRPC's default where it has one).
type Limits struct {
	// MaxConnections is how many client connections are served at once;
	// further ones wait in the listen backlog until one closes.
	MaxConnections int
	// MaxStreams is how many calls one connection may have in flight
	// (HTTP/2 MAX_CONCURRENT_STREAMS); more wait on the client side.
	MaxStreams uint32
	// IdleTimeout closes a connection that has had no call in flight for
	// this long (keepalive.ServerParameters.MaxConnectionIdle).
	IdleTimeout time.Duration
	// KeepaliveTime pings a client whose connection has been silent this
	// long, and KeepaliveTimeout closes it when the ping is not answered
	// in time: a vanished client's connection does not stay forever.
	KeepaliveTime, KeepaliveTimeout time.Duration
	// MinPingInterval is how often a client may ping (with or without
	// calls in flight); a client pinging more often is disconnected
	// (keepalive.EnforcementPolicy).
	MinPingInterval time.Duration
	// SendBuffer is how many bytes of large streamed messages (ListBundles
	// with inline manifests) the server holds for its clients at once,
	// and SendStall how long the connection of a client with one of them
	// unwritten may write nothing while others wait before it is closed
	// (sendLimiter; 0: never closed, the others wait).
	SendBuffer int64
	SendStall  time.Duration
}

// WithLimits bounds connections, streams and buffered sends (Serve and
// ServeLoading).
func WithLimits(l Limits) Option { return func(o *options) { o.limits = &l } }

// serverOptions are the gRPC options l sets.
func (l *Limits) serverOptions() []grpc.ServerOption {
	// gRPC shares write buffers between idle connections by default.
	opts := []grpc.ServerOption{
		grpc.KeepaliveParams(keepalive.ServerParameters{
			MaxConnectionIdle: l.IdleTimeout,
			Time:              l.KeepaliveTime,
			Timeout:           l.KeepaliveTimeout,
		}),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: l.MinPingInterval, PermitWithoutStream: true}),
	}
	if l.MaxStreams > 0 {
		opts = append(opts, grpc.MaxConcurrentStreams(l.MaxStreams))
	}
	if l.SendBuffer > 0 {
		opts = append(opts, grpc.ForceServerCodecV2(newLimitCodec()))
	}
	return opts
}

// connLimiter is a listener that serves at most max connections at once
// (no limit when max is 0) and can close a client's connection by its
// address (the send limiter's eviction).
type connLimiter struct {
	net.Listener
	slots  chan struct{}
	closed chan struct{}
	once   sync.Once
	mu     sync.Mutex
	conns  map[string]*limitedConn
}

func newConnLimiter(lis net.Listener, max int) *connLimiter {
	l := &connLimiter{Listener: lis, closed: make(chan struct{}), conns: map[string]*limitedConn{}}
	if max > 0 {
		l.slots = make(chan struct{}, max)
	}
	return l
}

// Accept waits for a free slot, then for a connection.
func (l *connLimiter) Accept() (net.Conn, error) {
	if l.slots != nil {
		select {
		case l.slots <- struct{}{}:
		case <-l.closed:
			return nil, net.ErrClosed
		}
	}
	c, err := l.Listener.Accept()
	if err != nil {
		l.free()
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l}
	lc.lastWrite.Store(time.Now().UnixNano())
	l.mu.Lock()
	l.conns[c.RemoteAddr().String()] = lc
	l.mu.Unlock()
	return lc, nil
}

func (l *connLimiter) free() {
	if l.slots != nil {
		<-l.slots
	}
}

// Close closes the listener (connections stay, as with any listener).
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// closeConn closes the connection of the client at addr, if served.
func (l *connLimiter) closeConn(addr net.Addr) {
	l.mu.Lock()
	c := l.conns[addr.String()]
	l.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// lastWrite is when the connection of the client at addr last wrote,
// false when it is not served.
func (l *connLimiter) lastWrite(addr net.Addr) (time.Time, bool) {
	l.mu.Lock()
	c := l.conns[addr.String()]
	l.mu.Unlock()
	if c == nil {
		return time.Time{}, false
	}
	return time.Unix(0, c.lastWrite.Load()), true
}

// limitedConn frees its slot when closed, and records when it last
// wrote (a client that reads lets its connection write; one that does not
// read stalls it).
type limitedConn struct {
	net.Conn
	l         *connLimiter
	once      sync.Once
	lastWrite atomic.Int64 // unix nanoseconds
}

func (c *limitedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.lastWrite.Store(time.Now().UnixNano())
	}
	return n, err
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c.RemoteAddr().String())
		c.l.mu.Unlock()
		c.l.free()
	})
	return err
}

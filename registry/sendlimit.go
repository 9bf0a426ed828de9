package registry

import (
	"context"
	"net"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/proto"
)

// largeMessage is the encoded size from which a streamed message counts
// against the send buffer. Smaller ones are left to gRPC's own per-stream
// flow control: a stream whose client does not read blocks in Send once
// 64 KiB are queued, so it holds at most that and one small message.
const largeMessage = 64 << 10

// sendLimiter bounds what streams whose clients do not read can make the
// server hold. gRPC hands a sent message to its transport whole and
// returns: a stream whose client never reads keeps that encoded message
// (ListBundles sends each bundle's manifests inline: megabytes) and the
// next one it prepares, without limit across streams. So:
//
//   - one stream at a time prepares a message (the Querier materialises
//     it: manifests read and converted), and only while the large
//     messages handed to gRPC and not yet written to their connections
//     fit in the budget;
//   - a stream waits for its large message to be written before it
//     prepares the next, so each holds at most one;
//   - streams that have not yet had a large message written (a client
//     that never reads is one) hold at most half the budget together, so
//     clients that do read always find room;
//   - when a stream waits for its turn and the connection of a client
//     with a large message unwritten has written nothing for the stall
//     timeout (its client reads nothing), that connection is closed: its
//     buffers are freed and the budget with them. A client that reads,
//     however slowly, keeps its connection writing.
//
// A message is counted from before it is encoded until gRPC frees its
// encoded buffer (written, or the stream or connection gone): the codec
// (limitCodec) encodes it into a buffer whose release returns its bytes.
type sendLimiter struct {
	budget int64
	stall  time.Duration
	conns  clientConns

	mu       sync.Mutex
	busy     bool  // a stream is preparing a message
	used     int64 // bytes of large messages not yet written
	unproven int64 // the part of used of streams that had none written yet
	pending  []*pendingMsg
	waiters  []*sendWaiter
}

// clientConns are the server's client connections (connLimiter).
type clientConns interface {
	// lastWrite is when the connection of the client at addr last wrote.
	lastWrite(addr net.Addr) (time.Time, bool)
	// closeConn closes it.
	closeConn(addr net.Addr)
}

func newSendLimiter(budget int64, stall time.Duration, conns clientConns) *sendLimiter {
	return &sendLimiter{budget: budget, stall: stall, conns: conns}
}

// sendWaiter is a stream waiting for its turn to prepare a message.
type sendWaiter struct {
	proven  bool
	ready   chan struct{} // closed when granted
	granted bool
}

// pendingMsg is a large message counted against the budget.
type pendingMsg struct {
	l       *sendLimiter
	msg     proto.Message
	size    int64
	proven  bool
	since   time.Time
	peer    net.Addr
	evicted bool
	once    sync.Once
	written chan struct{} // closed once gRPC freed its buffer
}

// fits says whether a stream may prepare a message now.
func (l *sendLimiter) fits(proven bool) bool {
	if l.busy || l.used >= l.budget {
		return false
	}
	return proven || l.unproven < l.budget/2
}

// grant hands the turn to the waiters that fit, proven streams first,
// newest first (a burst of clients that never read does not queue ahead
// of one that arrives after it).
func (l *sendLimiter) grant() {
	for len(l.waiters) > 0 && !l.busy {
		i := slices.IndexFunc(l.waiters, func(w *sendWaiter) bool { return w.proven })
		if i < 0 {
			i = len(l.waiters) - 1
		} else {
			for j := len(l.waiters) - 1; j > i; j-- {
				if l.waiters[j].proven {
					i = j
					break
				}
			}
		}
		w := l.waiters[i]
		if !l.fits(w.proven) {
			return
		}
		l.waiters = slices.Delete(l.waiters, i, i+1)
		w.granted = true
		l.busy = true
		close(w.ready)
	}
}

// turn waits until the stream may prepare its next message; endTurn
// ends it. While waiting it closes the connection of a client whose
// message has been stalled too long.
func (l *sendLimiter) turn(ctx context.Context, proven bool) error {
	l.mu.Lock()
	if l.fits(proven) && len(l.waiters) == 0 {
		l.busy = true
		l.mu.Unlock()
		return nil
	}
	w := &sendWaiter{proven: proven, ready: make(chan struct{})}
	l.waiters = append(l.waiters, w)
	l.grant()
	for !w.granted {
		wait := l.evictStalled()
		l.mu.Unlock()
		timer := time.NewTimer(wait)
		select {
		case <-w.ready:
			timer.Stop()
			return nil
		case <-ctx.Done():
			timer.Stop()
			l.mu.Lock()
			if w.granted {
				l.busy = false
			} else {
				l.waiters = slices.DeleteFunc(l.waiters, func(o *sendWaiter) bool { return o == w })
			}
			l.grant()
			l.mu.Unlock()
			return ctx.Err()
		case <-timer.C:
			l.mu.Lock()
		}
	}
	l.mu.Unlock()
	return nil
}

// evictStalled closes the connections of clients with a large message
// pending that have written nothing for the stall timeout, and returns
// how long until the next one could be. Called with mu held.
func (l *sendLimiter) evictStalled() time.Duration {
	if l.stall <= 0 {
		return time.Hour // no eviction: wait for a release
	}
	wait := l.stall
	for _, p := range l.pending {
		if p.evicted || p.peer == nil {
			continue
		}
		last := p.since
		if w, ok := l.conns.lastWrite(p.peer); ok && w.After(last) {
			last = w
		}
		idle := time.Since(last)
		if idle < l.stall {
			wait = min(wait, l.stall-idle)
			continue
		}
		p.evicted = true
		go l.conns.closeConn(p.peer)
	}
	return wait
}

func (l *sendLimiter) endTurn() {
	l.mu.Lock()
	l.busy = false
	l.grant()
	l.mu.Unlock()
}

// reserve counts msg, of size bytes, against the budget until gRPC
// frees its encoded buffer.
func (l *sendLimiter) reserve(msg proto.Message, size int64, proven bool, addr net.Addr) *pendingMsg {
	p := &pendingMsg{l: l, msg: msg, size: size, proven: proven, since: time.Now(), peer: addr, written: make(chan struct{})}
	l.mu.Lock()
	l.used += size
	if !proven {
		l.unproven += size
	}
	l.pending = append(l.pending, p)
	l.mu.Unlock()
	return p
}

// release returns p's bytes (once: when gRPC frees the buffer, or when
// the send failed before it was encoded).
func (p *pendingMsg) release() {
	p.once.Do(func() {
		l := p.l
		l.mu.Lock()
		l.used -= p.size
		if !p.proven {
			l.unproven -= p.size
		}
		l.pending = slices.DeleteFunc(l.pending, func(o *pendingMsg) bool { return o == p })
		l.grant()
		l.mu.Unlock()
		close(p.written)
	})
}

// Get implements mem.BufferPool for the encoded buffer (never called:
// the codec allocates it).
func (p *pendingMsg) Get(n int) *[]byte {
	b := make([]byte, n)
	return &b
}

// Put implements mem.BufferPool: gRPC is done with the encoded message.
func (p *pendingMsg) Put(*[]byte) { p.release() }

// limitCodec is the server's codec: proto, except that a pendingMsg is
// encoded into a buffer that releases its budget when freed.
type limitCodec struct{ base encoding.CodecV2 }

func newLimitCodec() limitCodec { return limitCodec{base: encoding.GetCodecV2("proto")} }

func (c limitCodec) Marshal(v any) (mem.BufferSlice, error) {
	p, ok := v.(*pendingMsg)
	if !ok {
		return c.base.Marshal(v)
	}
	buf, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(make([]byte, 0, p.size), p.msg)
	if err != nil {
		p.release()
		return nil, err
	}
	return mem.BufferSlice{mem.NewBuffer(&buf, p)}, nil
}

func (c limitCodec) Unmarshal(data mem.BufferSlice, v any) error { return c.base.Unmarshal(data, v) }

func (c limitCodec) Name() string { return c.base.Name() }

// limitedSender sends one stream's messages through the limiter.
type limitedSender struct {
	l      *sendLimiter
	stream grpc.ServerStream
	proven bool  // its client reads (sendLimiter)
	small  int64 // bytes sent in small messages
	inTurn bool
}

// provenBytes of small messages sent prove that a stream's client reads
// as a large message written does.
const provenBytes = 1 << 20

// start takes the turn to prepare the stream's next message.
func (s *limitedSender) start() error {
	if err := s.l.turn(s.stream.Context(), s.proven); err != nil {
		return err
	}
	s.inTurn = true
	return nil
}

// send sends m, prepared in this stream's turn, and takes the turn for
// the next one once m is written.
func (s *limitedSender) send(m proto.Message) error {
	ctx := s.stream.Context()
	size := int64(proto.Size(m))
	if size < largeMessage {
		s.end()
		if err := s.stream.SendMsg(m); err != nil {
			return err
		}
		// gRPC blocks a stream once 64 KiB wait for its client: one that
		// got this far through small messages reads.
		if s.small += size; s.small >= provenBytes {
			s.proven = true
		}
		return s.start()
	}
	var addr net.Addr
	if p, ok := peer.FromContext(ctx); ok {
		addr = p.Addr
	}
	p := s.l.reserve(m, size, s.proven, addr)
	s.end()
	if err := s.stream.SendMsg(p); err != nil {
		p.release()
		return err
	}
	select {
	case <-p.written:
		s.proven = true
	case <-ctx.Done():
		// The client cancelled (gRPC frees the buffer) or its connection
		// is gone: gRPC drops the buffer without freeing it, and it is
		// garbage once the transport is.
		p.release()
		return ctx.Err()
	}
	return s.start()
}

// end ends the turn, if held.
func (s *limitedSender) end() {
	if s.inTurn {
		s.inTurn = false
		s.l.endTurn()
	}
}

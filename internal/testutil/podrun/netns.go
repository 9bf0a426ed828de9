package podrun

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// netns is a pod's network namespace, kept alive by a bind mount at path
// (what the sandbox's pause container does for a kubelet): every
// container of the pod joins it by path, so they share one loopback.
type netns struct {
	path string
}

// newNetns creates a network namespace holding only loopback, brought up,
// and pins it at path. The work happens on a locked OS thread that is
// never unlocked: the thread leaves the process with the namespace it
// entered, so no other goroutine ever runs in it.
func newNetns(path string) (*netns, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	f.Close()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		errc <- func() error {
			if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
				return fmt.Errorf("unshare network namespace: %w", err)
			}
			if err := loopbackUp(); err != nil {
				return err
			}
			self := fmt.Sprintf("/proc/self/task/%d/ns/net", unix.Gettid())
			if err := unix.Mount(self, path, "", unix.MS_BIND, ""); err != nil {
				return fmt.Errorf("pin network namespace at %s: %w", path, err)
			}
			return nil
		}()
	}()
	if err := <-errc; err != nil {
		os.Remove(path)
		return nil, err
	}
	return &netns{path: path}, nil
}

// loopbackUp sets lo up in the calling thread's network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("loopback: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback flags: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("loopback up: %w", err)
	}
	return nil
}

// do runs fn on a locked OS thread that has entered the namespace. Sockets
// fn creates belong to the namespace for their whole life, wherever they
// are used afterwards. The thread is discarded after fn.
func (n *netns) do(fn func() error) error {
	ns, err := os.Open(n.path)
	if err != nil {
		return err
	}
	defer ns.Close()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := unix.Setns(int(ns.Fd()), unix.CLONE_NEWNET); err != nil {
			errc <- fmt.Errorf("enter network namespace %s: %w", n.path, err)
			return
		}
		errc <- fn()
	}()
	return <-errc
}

// dial connects to addr (host:port) inside the namespace.
func (n *netns) dial(ctx context.Context, addr string) (net.Conn, error) {
	var c net.Conn
	err := n.do(func() error {
		var err error
		c, err = (&net.Dialer{}).DialContext(ctx, "tcp", addr)
		return err
	})
	return c, err
}

// listen opens a TCP listener at addr inside the namespace.
func (n *netns) listen(addr string) (net.Listener, error) {
	var l net.Listener
	err := n.do(func() error {
		var err error
		l, err = net.Listen("tcp", addr)
		return err
	})
	return l, err
}

// close unpins the namespace; it goes away with the last process in it.
func (n *netns) close() error {
	err := unix.Unmount(n.path, unix.MNT_DETACH)
	if rerr := os.Remove(n.path); err == nil {
		err = rerr
	}
	return err
}

// forward accepts connections on l and pipes each to what dial returns,
// until l is closed: kubectl port-forward's job.
func forward(l net.Listener, dial func(ctx context.Context) (net.Conn, error)) {
	for {
		in, err := l.Accept()
		if err != nil {
			return
		}
		go func() {
			defer in.Close()
			out, err := dial(context.Background())
			if err != nil {
				return
			}
			defer out.Close()
			done := make(chan struct{}, 2)
			pipe := func(dst, src net.Conn) {
				io.Copy(dst, src)
				if tc, ok := dst.(*net.TCPConn); ok {
					tc.CloseWrite()
				}
				done <- struct{}{}
			}
			go pipe(out, in)
			go pipe(in, out)
			<-done
			<-done
		}()
	}
}

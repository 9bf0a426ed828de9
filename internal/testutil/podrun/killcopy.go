package podrun

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	"golang.org/x/sys/unix"
)

// RunOption changes how one pod is run.
type RunOption func(*Pod)

// KillInCopy SIGKILLs the named container's first attempt in the middle
// of a copy, as the OOM killer or a node's crash may: the attempt is
// killed while its nth file copy with data still to copy (a
// copy_file_range call whose destination is shorter than its source,
// counted from 1) is held, so the kill always lands mid-copy, never
// after the copy ended. The harness then handles the exit (137) as the
// kubelet does; Killed tells what the copy had written.
//
// The hold is seccomp's user notification (runc's listenerPath): the
// attempt's copy_file_range calls wait for the harness, which lets the
// earlier ones run and kills the container while the nth one waits.
// Copiers built with Go (OLM's copy-content, cpb, the harness's cp) copy
// a file with copy_file_range, at most once per file before its end.
func KillInCopy(container string, n int) RunOption {
	return func(p *Pod) { p.killPlans[container] = n }
}

// CopyKill is where a KillInCopy kill landed.
type CopyKill struct {
	// Dest is the copy's destination, as the container names it.
	Dest string
	// Written and Size are the destination's and the source's sizes when
	// the container was killed.
	Written, Size int64
}

// Killed is the KillInCopy kill of a container, false if it did not
// happen (the container's copies ended before the nth).
func (p *Pod) Killed(container string) (CopyKill, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k, ok := p.kills[container]
	return k, ok
}

// takeKillPlan is a container's KillInCopy count, once: only its first
// attempt is killed.
func (p *Pod) takeKillPlan(name string) (int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, ok := p.killPlans[name]
	delete(p.killPlans, name)
	return n, ok
}

// copyTrapFor is the hold on a container attempt's copies when it is to
// be killed in one (KillInCopy), with its seccomp spec; none otherwise.
func (p *Pod) copyTrapFor(name string) (*copyTrap, *specs.LinuxSeccomp, error) {
	n, ok := p.takeKillPlan(name)
	if !ok {
		return nil, nil, nil
	}
	return p.newCopyTrap(n)
}

// socketSeq names the runtime's seccomp listener sockets (a unix
// socket's path must stay short).
var socketSeq atomic.Int64

// copyTrap holds a container attempt's copies for KillInCopy.
type copyTrap struct {
	l *net.UnixListener
	n int
}

// newCopyTrap listens for runc's seccomp notification fd and returns the
// seccomp section of the container's spec that hands copy_file_range
// calls to it.
func (p *Pod) newCopyTrap(n int) (*copyTrap, *specs.LinuxSeccomp, error) {
	path := filepath.Join(p.rt.dir, "sc"+strconv.FormatInt(socketSeq.Add(1), 10))
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, nil, err
	}
	sec := &specs.LinuxSeccomp{DefaultAction: specs.ActAllow, ListenerPath: path,
		Syscalls: []specs.LinuxSyscall{{Names: []string{"copy_file_range"}, Action: specs.ActNotify}}}
	return &copyTrap{l: l, n: n}, sec, nil
}

// run receives the attempt's notification fd and answers its copies:
// the first n-1 with data to copy, and every one at a file's end, run;
// at the nth the container is killed and the copy recorded. It returns
// once the kill is done or the attempt has exited.
func (tr *copyTrap) run(p *Pod, c, id string, exited chan struct{}) {
	defer tr.l.Close()
	go func() {
		<-exited
		tr.l.SetDeadline(time.Now())
	}()
	fd, err := tr.receiveFd()
	if err != nil {
		p.event("KillInCopy of %s: no seccomp notification fd: %v", c, err)
		return
	}
	defer unix.Close(fd)
	for count := 0; ; {
		req, ok := recvNotif(fd, exited)
		if !ok {
			return
		}
		k, err := pendingCopy(req)
		if err != nil || k.Written >= k.Size {
			respondContinue(fd, req.id)
			continue
		}
		if count++; count < tr.n {
			respondContinue(fd, req.id)
			continue
		}
		// The call waits for an answer it never gets: the kill ends it.
		p.update(func() { p.kills[c] = k })
		p.event("Killing container %s with SIGKILL in copy %d (KillInCopy): %s at %d of %d bytes", c, count, k.Dest, k.Written, k.Size)
		p.rt.runcCmd(context.Background(), "kill", id, "KILL").Run()
		return
	}
}

// receiveFd accepts runc's connection and returns the fd it passes.
func (tr *copyTrap) receiveFd() (int, error) {
	conn, err := tr.l.AcceptUnix()
	if err != nil {
		return -1, err
	}
	defer conn.Close()
	buf, oob := make([]byte, 1<<16), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	if err != nil {
		return -1, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return -1, fmt.Errorf("want one control message: %v", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return -1, fmt.Errorf("want one fd: %v", err)
	}
	return fds[0], nil
}

// seccompNotif is the kernel's struct seccomp_notif.
type seccompNotif struct {
	id    uint64
	pid   uint32
	flags uint32
	nr    int32
	arch  uint32
	ip    uint64
	args  [6]uint64
}

// seccompNotifResp is the kernel's struct seccomp_notif_resp.
type seccompNotifResp struct {
	id    uint64
	val   int64
	error int32
	flags uint32
}

// recvNotif waits for the next held call; false once the attempt exited.
func recvNotif(fd int, exited chan struct{}) (seccompNotif, bool) {
	for {
		select {
		case <-exited:
			return seccompNotif{}, false
		default:
		}
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		if n, err := unix.Poll(pfd, 100); err != nil && !errors.Is(err, unix.EINTR) || n == 0 {
			continue
		}
		if pfd[0].Revents&unix.POLLHUP != 0 {
			return seccompNotif{}, false
		}
		var req seccompNotif
		if err := ioctl(fd, unix.SECCOMP_IOCTL_NOTIF_RECV, unsafe.Pointer(&req)); err == nil {
			return req, true
		}
	}
}

// pendingCopy is what the held copy_file_range(fd_in, _, fd_out, ...)
// has written so far, read through the caller's fds.
func pendingCopy(req seccompNotif) (CopyKill, error) {
	fdDir := fmt.Sprintf("/proc/%d/fd/", req.pid)
	src, err := os.Stat(fdDir + strconv.FormatUint(req.args[0], 10))
	if err != nil {
		return CopyKill{}, err
	}
	out := fdDir + strconv.FormatUint(req.args[2], 10)
	dst, err := os.Stat(out)
	if err != nil {
		return CopyKill{}, err
	}
	name, _ := os.Readlink(out)
	return CopyKill{Dest: name, Written: dst.Size(), Size: src.Size()}, nil
}

// respondContinue lets a held call run.
func respondContinue(fd int, id uint64) {
	resp := seccompNotifResp{id: id, flags: unix.SECCOMP_USER_NOTIF_FLAG_CONTINUE}
	_ = ioctl(fd, unix.SECCOMP_IOCTL_NOTIF_SEND, unsafe.Pointer(&resp))
}

func ioctl(fd int, req uint, arg unsafe.Pointer) error {
	if _, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), uintptr(req), uintptr(arg)); e != 0 {
		return e
	}
	return nil
}

package podrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	specs "github.com/opencontainers/runtime-spec/specs-go"
	corev1 "k8s.io/api/core/v1"
)

// running is one attempt of a container: runc's id and when it started.
type running struct {
	id      string
	started time.Time
	c       *corev1.Container
	// kill asks the supervisor to stop the attempt (a failed liveness or
	// startup probe); reason is logged.
	kill func(reason string)
}

// attempt runs a container once, from a fresh rootfs, until it exits or
// the pod stops; probes (for the pod's containers) runs beside it. It
// returns the exit code; err is why it could not start.
func (p *Pod) attempt(c *corev1.Container, n int, probes func(ctx context.Context, r *running)) (int, error) {
	id := fmt.Sprintf("%s-%s-%d", p.name, c.Name, n)
	bundle := filepath.Join(p.dir, "bundles", fmt.Sprintf("%s-%d", c.Name, n))
	defer os.RemoveAll(bundle)
	log, termLog, err := p.attemptFiles(c.Name, n)
	if err != nil {
		return -1, err
	}
	defer log.Close()
	trap, sec, err := p.copyTrapFor(c.Name)
	if err == nil {
		err = p.prepare(c, bundle, termLog, sec)
	}
	if trap != nil {
		defer trap.l.Close()
	}
	if err != nil {
		p.event("Failed to create container %s: %v", c.Name, err)
		return -1, err
	}

	cmd := p.rt.runcCmd(context.Background(), "run", "--bundle", bundle, id)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return -1, err
	}
	exited := make(chan struct{})
	var werr error
	go func() {
		werr = cmd.Wait()
		close(exited)
	}()
	if trap != nil {
		go trap.run(p, c.Name, id, exited)
	}
	p.waitRunning(id, exited)
	r := &running{id: id, started: time.Now(), c: c}
	p.update(func() { p.runSince[c.Name], p.running[c.Name] = r.started, id })
	p.event("Started container %s (attempt %d)", c.Name, n)
	killc := make(chan string, 1)
	r.kill = func(reason string) {
		select {
		case killc <- reason:
		default:
		}
	}
	ctx, cancel := context.WithCancel(p.ctx)
	if probes != nil {
		go probes(ctx, r)
	}
	go func() {
		select {
		case <-exited:
		case <-p.ctx.Done():
			p.rt.runcCmd(context.Background(), "kill", id, "KILL").Run()
		case reason := <-killc:
			p.event("Killing container %s: %s", c.Name, reason)
			p.stopContainer(id, exited)
		}
	}()
	<-exited
	p.update(func() { delete(p.running, c.Name) })
	cancel()
	p.setReady(c.Name, false)
	p.rt.runcCmd(context.Background(), "delete", "--force", id).Run()
	code := exitCode(werr)
	if code < 0 {
		return -1, werr
	}
	p.event("Container %s exited with code %d", c.Name, code)
	return code, nil
}

// attemptFiles creates an attempt's log and its termination message file
// (the kubelet's, world-writable), kept after the attempt.
func (p *Pod) attemptFiles(name string, n int) (log *os.File, termLog string, err error) {
	base := filepath.Join(p.dir, "logs", fmt.Sprintf("%s-%d", name, n))
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return nil, "", err
	}
	termLog = base + ".termination-log"
	if err := os.WriteFile(termLog, nil, 0o666); err != nil {
		return nil, "", err
	}
	if err := os.Chmod(termLog, 0o666); err != nil {
		return nil, "", err
	}
	log, err = os.Create(base + ".log")
	if err != nil {
		return nil, "", err
	}
	p.update(func() {
		p.logs[name] = append(p.logs[name], log.Name())
		p.termLogs[name] = append(p.termLogs[name], termLog)
	})
	return log, termLog, nil
}

// waitRunning returns once runc reports the container running (the
// kubelet starts probing a started container), or it exited.
func (p *Pod) waitRunning(id string, exited chan struct{}) {
	for {
		out, err := p.rt.runcCmd(context.Background(), "state", id).Output()
		var st struct {
			Status string `json:"status"`
		}
		if err == nil && json.Unmarshal(out, &st) == nil && st.Status != "created" && st.Status != "creating" {
			return
		}
		select {
		case <-exited:
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// stopContainer sends SIGTERM, then SIGKILL after the pod's termination
// grace period.
func (p *Pod) stopContainer(id string, exited chan struct{}) {
	grace := 30 * time.Second
	if g := p.spec.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	p.rt.runcCmd(context.Background(), "kill", id, "TERM").Run()
	select {
	case <-exited:
	case <-time.After(grace):
		p.rt.runcCmd(context.Background(), "kill", id, "KILL").Run()
	}
}

// prepare writes the runc bundle of a container: the image's rootfs,
// the volumes, the termination message file (termLog) at the
// container's terminationMessagePath, and config.json.
func (p *Pod) prepare(c *corev1.Container, bundle, termLog string, seccomp *specs.LinuxSeccomp) error {
	img, err := p.rt.pull(c.Image)
	if err != nil {
		return fmt.Errorf("pull %s: %w", c.Image, err)
	}
	rootfs := filepath.Join(bundle, "rootfs")
	if err := os.MkdirAll(rootfs, 0o755); err != nil {
		return err
	}
	if err := img.unpack(rootfs); err != nil {
		return fmt.Errorf("unpack %s: %w", c.Image, err)
	}
	sec := effectiveSecurity(p.spec, c)
	u, err := user(sec, img, rootfs)
	if err != nil {
		return err
	}
	args, err := argv(c, img)
	if err != nil {
		return err
	}
	mounts, extraEnv, err := p.mounts(c)
	if err != nil {
		return err
	}
	termPath := c.TerminationMessagePath
	if termPath == "" {
		termPath = corev1.TerminationMessagePathDefault
	}
	mounts = append(mounts, bind(termLog, termPath, false))
	env, err := environ(c, img, append([]string{"HOSTNAME=" + p.name}, extraEnv...))
	if err != nil {
		return err
	}
	cwd := c.WorkingDir
	if cwd == "" {
		cwd = img.config.WorkingDir
	}
	if cwd == "" {
		cwd = "/"
	}
	o := ociSpec{args: args, env: env, cwd: cwd, user: u, sec: sec, hostname: p.name, netns: p.ns.path, mounts: mounts, seccomp: seccomp}
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; ok {
		o.memLimit = q.Value()
	}
	data, err := json.MarshalIndent(o.spec(), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(bundle, "config.json"), data, 0o644)
}

// mounts are a container's volume mounts (emptyDir volumes are host
// directories of the pod), /etc/hosts and /etc/hostname, and with an API
// server the service account volume; extraEnv is the in-cluster
// environment then.
func (p *Pod) mounts(c *corev1.Container) (mounts []specs.Mount, extraEnv []string, err error) {
	vols := map[string]*corev1.Volume{}
	for i := range p.spec.Spec.Volumes {
		vols[p.spec.Spec.Volumes[i].Name] = &p.spec.Spec.Volumes[i]
	}
	for _, vm := range c.VolumeMounts {
		v, ok := vols[vm.Name]
		if !ok {
			return nil, nil, fmt.Errorf("container %s: volume mount %s names no volume of the pod", c.Name, vm.Name)
		}
		if v.EmptyDir == nil {
			return nil, nil, fmt.Errorf("volume %s: only emptyDir volumes are supported by the harness", v.Name)
		}
		dir := filepath.Join(p.dir, "volumes", v.Name)
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return nil, nil, err
		}
		// The kubelet makes an emptyDir world-writable.
		if err := os.Chmod(dir, 0o777); err != nil {
			return nil, nil, err
		}
		if vm.SubPath != "" {
			return nil, nil, fmt.Errorf("volume mount %s: subPath is not supported by the harness", vm.Name)
		}
		mounts = append(mounts, bind(dir, vm.MountPath, vm.ReadOnly))
	}
	etc, err := p.etcFiles()
	if err != nil {
		return nil, nil, err
	}
	mounts = append(mounts, bind(filepath.Join(etc, "hosts"), "/etc/hosts", false), bind(filepath.Join(etc, "hostname"), "/etc/hostname", false))
	if p.rt.api == nil || (p.spec.Spec.AutomountServiceAccountToken != nil && !*p.spec.Spec.AutomountServiceAccountToken) {
		return mounts, nil, nil
	}
	sa, err := p.serviceAccount()
	if err != nil {
		return nil, nil, err
	}
	env, err := inClusterEnv(p.rt.api.Addr)
	if err != nil {
		return nil, nil, err
	}
	return append(mounts, bind(sa, "/var/run/secrets/kubernetes.io/serviceaccount", true)), env, nil
}

// inClusterEnv is what the kubelet sets for the kubernetes Service at
// addr: client-go's in-cluster config reads the first two.
func inClusterEnv(addr string) ([]string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	return []string{"KUBERNETES_SERVICE_HOST=" + host, "KUBERNETES_SERVICE_PORT=" + port, "KUBERNETES_SERVICE_PORT_HTTPS=" + port,
		"KUBERNETES_PORT=tcp://" + addr, "KUBERNETES_PORT_" + port + "_TCP=tcp://" + addr}, nil
}

// etcFiles writes the pod's /etc/hosts and /etc/hostname once.
func (p *Pod) etcFiles() (string, error) {
	dir := filepath.Join(p.dir, "etc")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	hosts := "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
	if err := os.WriteFile(filepath.Join(dir, "hosts"), []byte(hosts), 0o644); err != nil {
		return "", err
	}
	return dir, os.WriteFile(filepath.Join(dir, "hostname"), []byte(p.name+"\n"), 0o644)
}

// exitCode is a wait error's exit status (-1 when it is not one).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

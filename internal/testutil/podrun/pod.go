package podrun

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
)

// Pod is a running pod: its init containers in order, then its
// containers, all in one network namespace.
type Pod struct {
	rt   *Runtime
	spec *corev1.Pod
	name string
	dir  string
	ns   *netns

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced on every status change
	phase    corev1.PodPhase
	reason   string
	ready    map[string]bool
	restarts map[string]int
	events   []string
	logs     map[string][]string  // per container, one file per attempt
	termLogs map[string][]string  // per container, each attempt's termination message file
	started  time.Time            // when Run was called
	readyAt  time.Time            // when the pod last turned Ready
	runSince map[string]time.Time // when each container's last attempt started
	running  map[string]string    // runc id of each running container

	killPlans map[string]int      // KillInCopy: container -> the copy it is killed in
	kills     map[string]CopyKill // where each KillInCopy kill landed

	saOnce sync.Once
	saDir  string
	saErr  error

	stopOnce sync.Once
}

// Run starts spec's pod in the background; it is stopped when t ends.
func (r *Runtime) Run(t testing.TB, spec *corev1.Pod, opts ...RunOption) *Pod {
	t.Helper()
	name := spec.Name
	if name == "" {
		// The API server's name generator: the base cut to 58 characters,
		// so the name (the pod's hostname) stays within 63.
		base := spec.GenerateName
		if len(base) > 58 {
			base = base[:58]
		}
		name = base + suffix()
	}
	p := &Pod{rt: r, spec: spec.DeepCopy(), name: name, dir: filepath.Join(r.dir, name),
		changed: make(chan struct{}), phase: corev1.PodPending, done: make(chan struct{}),
		ready: map[string]bool{}, restarts: map[string]int{}, logs: map[string][]string{}, termLogs: map[string][]string{}, started: time.Now(), runSince: map[string]time.Time{}, running: map[string]string{},
		killPlans: map[string]int{}, kills: map[string]CopyKill{}}
	for _, o := range opts {
		o(p)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(p.dir, "volumes"), 0o755))
	ns, err := newNetns(filepath.Join(p.dir, "netns"))
	require.NoError(t, err)
	p.ns = ns
	p.ctx, p.cancel = context.WithCancel(context.Background())
	t.Cleanup(p.Stop)
	go p.run()
	return p
}

// Spec is the pod as run.
func (p *Pod) Spec() *corev1.Pod { return p.spec }

// Started is when the pod was started (Run).
func (p *Pod) Started() time.Time { return p.started }

// ContainerStarted is when a container's last attempt started (zero if
// none did): the kubelet's probe budgets count from there.
func (p *Pod) ContainerStarted(name string) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runSince[name]
}

// ReadyAt is when the pod last turned Ready (zero if never).
func (p *Pod) ReadyAt() time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.readyAt
}

// Stop kills every container and removes the pod's namespace; it returns
// when everything is gone. It may be called more than once (the test's
// cleanup calls it too).
func (p *Pod) Stop() {
	p.stopOnce.Do(func() {
		p.cancel()
		<-p.done
		if p.ns != nil {
			p.ns.close()
		}
	})
}

// update changes the status under the lock and wakes the waiters.
func (p *Pod) update(fn func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fn()
	close(p.changed)
	p.changed = make(chan struct{})
}

// event records what happened, as kubectl describe shows it.
func (p *Pod) event(format string, args ...any) {
	msg := time.Now().Format("15:04:05.000 ") + fmt.Sprintf(format, args...)
	p.update(func() { p.events = append(p.events, msg) })
}

// run is the pod's lifetime: the init containers one after the other,
// each until it succeeds, then every container with its probes.
func (p *Pod) run() {
	defer close(p.done)
	for i := range p.spec.Spec.InitContainers {
		c := &p.spec.Spec.InitContainers[i]
		if !p.runInit(c) {
			return
		}
	}
	p.update(func() { p.phase = corev1.PodRunning })
	var wg sync.WaitGroup
	codes := make([]int, len(p.spec.Spec.Containers))
	for i := range p.spec.Spec.Containers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i] = p.supervise(&p.spec.Spec.Containers[i])
		}()
	}
	wg.Wait()
	if p.ctx.Err() != nil {
		return
	}
	phase := corev1.PodSucceeded
	for _, c := range codes {
		if c != 0 {
			phase = corev1.PodFailed
		}
	}
	p.update(func() { p.phase = phase })
}

// runInit runs an init container until it exits 0, restarting it after
// a failure unless the pod's restartPolicy is Never (the pod fails).
func (p *Pod) runInit(c *corev1.Container) bool {
	for attempt := 0; ; attempt++ {
		if !p.backoff(c.Name, attempt) {
			return false
		}
		code, err := p.attempt(c, attempt, nil)
		if p.ctx.Err() != nil {
			return false
		}
		if err == nil && code == 0 {
			return true
		}
		if p.spec.Spec.RestartPolicy == corev1.RestartPolicyNever {
			p.update(func() { p.phase, p.reason = corev1.PodFailed, fmt.Sprintf("init container %s failed", c.Name) })
			return false
		}
		p.update(func() { p.restarts[c.Name]++ })
	}
}

// supervise runs a container, restarting it as the restartPolicy says;
// it returns the last exit code.
func (p *Pod) supervise(c *corev1.Container) int {
	for attempt := 0; ; attempt++ {
		if !p.backoff(c.Name, attempt) {
			return -1
		}
		code, err := p.attempt(c, attempt, p.startProbes)
		if p.ctx.Err() != nil {
			return -1
		}
		policy := p.spec.Spec.RestartPolicy
		if policy == corev1.RestartPolicyNever || policy == corev1.RestartPolicyOnFailure && err == nil && code == 0 {
			if err != nil {
				return -1
			}
			return code
		}
		p.update(func() { p.restarts[c.Name]++ })
	}
}

// backoff waits before attempt n of a container: at once the first two
// times, then the kubelet's crash loop back-off (10 s doubling to 5 min).
// It is false when the pod stops meanwhile.
func (p *Pod) backoff(name string, n int) bool {
	if n < 2 {
		return p.ctx.Err() == nil
	}
	d := 10 * time.Second << min(n-2, 5)
	d = min(d, 5*time.Minute)
	p.event("Back-off %s restarting container %s", d, name)
	select {
	case <-time.After(d):
		return true
	case <-p.ctx.Done():
		return false
	}
}

// setReady records a container's readiness.
func (p *Pod) setReady(name string, ready bool) {
	p.update(func() {
		was := p.isReady()
		p.ready[name] = ready
		if !was && p.isReady() {
			p.readyAt = time.Now()
		}
	})
}

// isReady is the pod's Ready condition: running, every container ready.
func (p *Pod) isReady() bool {
	if p.phase != corev1.PodRunning {
		return false
	}
	for _, c := range p.spec.Spec.Containers {
		if !p.ready[c.Name] {
			return false
		}
	}
	return true
}

// WaitReady waits until the pod is Ready, or fails (its phase Failed or
// Succeeded), or ctx ends; the error then tells the pod's status, events
// and logs.
func (p *Pod) WaitReady(ctx context.Context) error {
	return p.wait(ctx, "Ready", func() bool { return p.isReady() })
}

func (p *Pod) wait(ctx context.Context, what string, ok func() bool) error {
	for {
		p.mu.Lock()
		done, phase, changed := ok(), p.phase, p.changed
		p.mu.Unlock()
		if done {
			return nil
		}
		if phase == corev1.PodFailed || phase == corev1.PodSucceeded {
			return fmt.Errorf("pod %s is %s, not %s\n%s", p.name, phase, what, p.Describe())
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return fmt.Errorf("pod %s not %s: %w\n%s", p.name, what, ctx.Err(), p.Describe())
		}
	}
}

// WaitDone waits until the pod has Succeeded or Failed (a Job's pod) and
// returns the phase; the error is ctx's, with the pod's status.
func (p *Pod) WaitDone(ctx context.Context) (corev1.PodPhase, error) {
	err := p.wait(ctx, "done", func() bool { return false })
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.phase == corev1.PodSucceeded || p.phase == corev1.PodFailed {
		return p.phase, nil
	}
	return p.phase, err
}

// Restarts is how often a container was restarted.
func (p *Pod) Restarts(container string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.restarts[container]
}

// Logs is a container's output (stdout and stderr), every attempt's in
// order.
func (p *Pod) Logs(container string) string {
	p.mu.Lock()
	files := append([]string(nil), p.logs[container]...)
	p.mu.Unlock()
	var b strings.Builder
	for _, f := range files {
		data, _ := os.ReadFile(f)
		b.Write(data)
	}
	return b.String()
}

// TerminationMessage is what attempt n (from 0) of a container wrote to
// its terminationMessagePath (the container status's message; the
// harness does not fall back to the log).
func (p *Pod) TerminationMessage(container string, n int) string {
	p.mu.Lock()
	files := p.termLogs[container]
	p.mu.Unlock()
	if n >= len(files) {
		return ""
	}
	data, _ := os.ReadFile(files[n])
	return string(data)
}

// Describe is the pod's status, events and logs, for failure messages.
func (p *Pod) Describe() string {
	p.mu.Lock()
	var b strings.Builder
	fmt.Fprintf(&b, "pod %s: phase %s %s, ready %v, restarts %v\nevents:\n", p.name, p.phase, p.reason, p.ready, p.restarts)
	for _, e := range p.events {
		fmt.Fprintf(&b, "  %s\n", e)
	}
	p.mu.Unlock()
	for _, c := range append(append([]corev1.Container(nil), p.spec.Spec.InitContainers...), p.spec.Spec.Containers...) {
		logs := p.Logs(c.Name)
		if len(logs) > 4000 {
			logs = "..." + logs[len(logs)-4000:]
		}
		fmt.Fprintf(&b, "logs of %s:\n%s\n", c.Name, logs)
	}
	return b.String()
}

// Forward listens on the host's loopback and forwards each connection to
// port inside the pod (kubectl port-forward): the returned host:port
// reaches the pod's port. It stops when t ends.
func (p *Pod) Forward(t testing.TB, port int) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	target := fmt.Sprintf("127.0.0.1:%d", port)
	go forward(l, func(ctx context.Context) (net.Conn, error) { return p.ns.dial(ctx, target) })
	return l.Addr().String()
}

package podrun

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// probeKind is which of a container's probes a worker runs.
type probeKind string

const (
	startupProbe   probeKind = "Startup"
	livenessProbe  probeKind = "Liveness"
	readinessProbe probeKind = "Readiness"
)

// startProbes runs a container attempt's probe workers, as the kubelet's
// prober does: each on its own period from the container's start, none
// before its initialDelaySeconds; liveness and readiness only once the
// startup probe has succeeded; a result changes after failureThreshold
// failures or successThreshold successes in a row. A failed startup or
// liveness probe kills the container (restarted by the restartPolicy).
// A container without a readiness probe is ready once started.
func (p *Pod) startProbes(ctx context.Context, r *running) {
	started := make(chan struct{})
	if r.c.StartupProbe == nil {
		close(started)
	} else {
		go p.probeWorker(ctx, r, startupProbe, r.c.StartupProbe, started)
	}
	if r.c.LivenessProbe != nil {
		go p.probeWorker(ctx, r, livenessProbe, r.c.LivenessProbe, started)
	}
	if r.c.ReadinessProbe != nil {
		go p.probeWorker(ctx, r, readinessProbe, r.c.ReadinessProbe, started)
		return
	}
	select {
	case <-started:
		p.setReady(r.c.Name, true)
	case <-ctx.Done():
	}
}

// probeWorker is one probe of one container attempt.
func (p *Pod) probeWorker(ctx context.Context, r *running, kind probeKind, pr *corev1.Probe, started chan struct{}) {
	period := seconds(pr.PeriodSeconds, 10)
	failureThreshold, successThreshold := int(orDefault(pr.FailureThreshold, 3)), int(orDefault(pr.SuccessThreshold, 1))
	result := kind == livenessProbe // liveness starts as success, startup and readiness as failure
	var fails, successes int
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		if p.probeDue(r, kind, pr, started) {
			ok, out := p.execProbe(ctx, r, pr)
			if ctx.Err() != nil {
				return
			}
			if ok {
				fails, successes = 0, successes+1
			} else {
				fails, successes = fails+1, 0
				p.event("%s probe of %s failed: %s", kind, r.c.Name, out)
			}
			switch {
			case ok && successes >= successThreshold:
				result = true
			case !ok && fails >= failureThreshold:
				result = false
			}
			if done := p.applyProbe(r, kind, result, fails >= failureThreshold, started); done {
				return
			}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}

// probeDue is whether a probe runs at this tick.
func (p *Pod) probeDue(r *running, kind probeKind, pr *corev1.Probe, started chan struct{}) bool {
	if kind != startupProbe {
		select {
		case <-started:
		default:
			return false
		}
	}
	return time.Since(r.started) >= time.Duration(pr.InitialDelaySeconds)*time.Second
}

// applyProbe acts on a probe's result; done ends the worker.
func (p *Pod) applyProbe(r *running, kind probeKind, result, failed bool, started chan struct{}) (done bool) {
	switch kind {
	case startupProbe:
		if result {
			p.event("Startup probe of %s succeeded", r.c.Name)
			close(started)
			return true
		}
		if failed {
			r.kill("Container " + r.c.Name + " failed startup probe, will be restarted")
			return true
		}
	case livenessProbe:
		if !result {
			r.kill("Container " + r.c.Name + " failed liveness probe, will be restarted")
			return true
		}
	case readinessProbe:
		p.setReady(r.c.Name, result)
	}
	return false
}

// execProbe runs an exec probe in the container (runc exec, the
// container's environment and user) within timeoutSeconds: exit 0 is
// success; a non-zero exit or a timeout is failure.
func (p *Pod) execProbe(ctx context.Context, r *running, pr *corev1.Probe) (bool, string) {
	if pr.Exec == nil {
		return false, "the harness runs exec probes only"
	}
	ctx, cancel := context.WithTimeout(ctx, seconds(pr.TimeoutSeconds, 1))
	defer cancel()
	cmd := p.rt.runcCmd(ctx, append([]string{"exec", r.id}, pr.Exec.Command...)...)
	// runc exec passes the signal on to the probe process.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 2 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() == context.DeadlineExceeded {
		return false, "command timed out after " + seconds(pr.TimeoutSeconds, 1).String()
	}
	return err == nil, strings.TrimSpace(out.String()) + " (" + errString(err) + ")"
}

// Exec runs argv in a container's running attempt (kubectl exec; runc
// exec with the container's environment and user) and returns its exit
// code and output.
func (p *Pod) Exec(ctx context.Context, container string, argv ...string) (int, string, error) {
	p.mu.Lock()
	id, ok := p.running[container]
	p.mu.Unlock()
	if !ok {
		return -1, "", fmt.Errorf("pod %s: container %s is not running", p.name, container)
	}
	cmd := p.rt.runcCmd(ctx, append([]string{"exec", id}, argv...)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	code := exitCode(cmd.Run())
	return code, out.String(), nil
}

func errString(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

func seconds(n int32, def int32) time.Duration {
	if n == 0 {
		n = def
	}
	return time.Duration(n) * time.Second
}

func orDefault(n int32, def int32) int32 {
	if n == 0 {
		return def
	}
	return n
}

package serve

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	rpprof "runtime/pprof"
	"sync"
	"time"
)

// Pprof configures opm serve's pprof endpoint and its start-up CPU
// profile (StartPprof), a Profiler of Serve.
type Pprof struct {
	// Addr is the address of the net/http/pprof endpoint ("": none).
	Addr string
	// CaptureStartup captures a CPU profile from the start until the
	// catalog is served, answered at /debug/pprof/startup/cpu.
	CaptureStartup bool
	// NotCaptured is the text of the 404 answer for the start-up
	// profile without CaptureStartup (the caller names how to ask for
	// it).
	NotCaptured string
	// Logger gets the endpoint's address and the warnings of what was
	// not started.
	Logger *slog.Logger
}

// profiler is a started Pprof.
type profiler struct {
	srv         *http.Server
	notCaptured string
	mu          sync.Mutex
	capture     bool
	cpu         *bytes.Buffer // the start-up profile while capturing, then done
	done        bool
}

// StartPprof starts the start-up profile and the endpoint p asks for. A
// busy address or a profile already running is a warning, not a
// failure: opm died there, and so did every second server on a host.
func StartPprof(ctx context.Context, p Pprof) Profiler {
	pr := &profiler{capture: p.CaptureStartup, notCaptured: p.NotCaptured}
	if pr.capture {
		pr.cpu = &bytes.Buffer{}
		if err := rpprof.StartCPUProfile(pr.cpu); err != nil {
			p.Logger.Warn("start-up CPU profile not captured", "error", err)
			pr.capture = false
		}
	}
	if p.Addr == "" {
		return pr
	}
	lis, err := (&net.ListenConfig{}).Listen(ctx, "tcp", p.Addr)
	if err != nil {
		p.Logger.Warn("pprof endpoint not started", "address", p.Addr, "error", err)
		return pr
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/startup/cpu", pr.startupCPU)
	pr.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = pr.srv.Serve(lis) }()
	p.Logger.Info("pprof endpoint on "+lis.Addr().String(), "address", lis.Addr().String())
	return pr
}

// Ready ends the start-up profile: the catalog is served.
func (p *profiler) Ready() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.capture && !p.done {
		rpprof.StopCPUProfile()
	}
	p.done = true
}

// startupCPU answers the start-up CPU profile once the catalog is
// served: 503 before, 404 when it is not captured.
func (p *profiler) startupCPU(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case !p.capture:
		http.Error(w, p.notCaptured, http.StatusNotFound)
	case !p.done:
		http.Error(w, "cpu profile cache is not yet ready", http.StatusServiceUnavailable)
	default:
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write(p.cpu.Bytes())
	}
}

// Stop ends the profile (a load that failed) and the endpoint.
func (p *profiler) Stop() {
	p.Ready()
	if p.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = p.srv.Shutdown(ctx)
	}
}

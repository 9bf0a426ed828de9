package main

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

// profiler is opm serve's pprof endpoint, and its start-up CPU profile.
type profiler struct {
	srv     *http.Server
	mu      sync.Mutex
	capture bool
	cpu     *bytes.Buffer // the start-up profile while capturing, then done
	done    bool
}

// startPprof starts the pprof endpoint on --pprof-addr (none when "").
// A busy address is a warning, not a failure: opm died there, and so did
// every second server on a host.
func (o *opmServeFlags) startPprof(ctx context.Context, logger *slog.Logger) (*profiler, error) {
	p := &profiler{capture: o.pprofCapture}
	if p.capture {
		p.cpu = &bytes.Buffer{}
		if err := rpprof.StartCPUProfile(p.cpu); err != nil {
			logger.Warn("start-up CPU profile not captured", "error", err)
			p.capture = false
		}
	}
	if o.pprofAddr == "" {
		return p, nil
	}
	lis, err := (&net.ListenConfig{}).Listen(ctx, "tcp", o.pprofAddr)
	if err != nil {
		logger.Warn("pprof endpoint not started", "address", o.pprofAddr, "error", err)
		return p, nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/startup/cpu", p.startupCPU)
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(lis) }()
	logger.Info("pprof endpoint on "+lis.Addr().String(), "address", lis.Addr().String())
	return p, nil
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
// served: 503 before, 404 when --pprof-capture-profiles was not given.
func (p *profiler) startupCPU(w http.ResponseWriter, _ *http.Request) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case !p.capture:
		http.Error(w, "no start-up profile: --pprof-capture-profiles was not given", http.StatusNotFound)
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

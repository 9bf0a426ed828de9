package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action/serve"
	"github.com/operator-catalog/olmcat/input"
)

func newServeCmd(img *imageFlags) *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve <dir|index.db|image>",
		Short: "Serve a catalog with the operator-registry gRPC API",
		Long: `Serve a declarative config directory or a legacy sqlite index with the
operator-registry api.Registry gRPC API, as opm serve and opm registry serve did,
plus grpc.health.v1 and server reflection (grpcurl list works).

The port is bound first; health reports NOT_SERVING (and api.Registry calls
fail with Unavailable) until the catalog is loaded, then SERVING. The served
files are watched (--watch-interval): once they change on disk (a file
added, removed, rewritten or renamed, a package folder replaced by olmcat
add) health turns NOT_SERVING and api.Registry calls fail with Unavailable,
until a restart, or with --reload until the changed catalog is loaded in the
background and swapped in whole (no answer mixes the old and the new
catalog; a changed catalog that does not load is logged and retried at its
next change).

A directory is validated and indexed package by package; bundle manifests
stay in the files and are read back per call. --cache-dir keeps the serve
cache so the next start of unchanged files skips validating and indexing
them: opm v1.73's own cache (its JSON format, which opm serve --cache-dir
accepts with its integrity check), and olmcat's faster snapshot of the index
in the sibling directory <cache-dir>.olmcat, where opm does not look. A cache
opm wrote (its pogreb.v1 or JSON format) is read too, checked against the
catalog with opm's digest. A sqlite file is opened
read-only. An image reference is pulled and its catalog extracted to a
temporary directory first (see olmcat help for images in README.md).
SIGINT/SIGTERM stop the server gracefully.

--http ADDR also serves catalogd's (OLM v1) HTTP API for the catalog, named
--catalog-name: /catalogs/<name>/api/v1/all and /metas as catalogd encodes
them (a sqlite index as its lossless migration), with ETags; -p -1 serves
that API alone. See MIGRATION.md.

A catalog that does not load (missing, invalid, or its cache failing the
integrity check) is an error: serve exits non-zero with it. Except as the
main process of a Kubernetes container (PID 1, with the kubelet's
termination message file at --termination-log): there the server stays
up with health NOT_SERVING and api.Registry calls failing with
Unavailable and the reason, which is logged once, so that a catalog
pod's probes report NOT_SERVING until its startup probe restarts it; on
SIGTERM it exits with the error, which becomes the container's
termination message.`,
		Example: `  olmcat serve ./catalog -p 50051
  olmcat serve ./catalog --cache-dir /var/cache/olmcat
  olmcat serve ./catalog --http :8080 -p -1   # catalogd's HTTP API only
  grpcurl -plaintext localhost:50051 api.Registry/ListPackages`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return serve.TerminationLog(f.opm.terminationLog).Write(runServe(cmd, args[0], f))
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.port, "port", "p", 50051, "TCP port to serve the gRPC API on (0 picks a free port, -1 none: --http only)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "serve cache directory (opm's format; olmcat's snapshot goes to <dir>.olmcat): restarts on unchanged declarative configs start from it")
	fl.BoolVar(&f.noWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning (also "+noDeprecationWarningEnv+"=1)")
	fl.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.opm.addOPMFlags(fl)
	f.imgFlags = img
	takesImages(cmd, imageSourceFlags)
	f.addServerFlags(fl)
	f.addHTTPFlags(fl)
	return cmd
}

// serveFlags are the flags of olmcat serve.
type serveFlags struct {
	port      int
	cacheDir  string
	noWarning bool
	logLevel  string
	imgFlags  *imageFlags
	opm       opmServeFlags
	server    serverFlags
	http      httpFlags
}

// runServe serves the catalog at path until the command's context ends.
func runServe(cmd *cobra.Command, path string, f *serveFlags) error {
	logger, enforce, err := f.check(cmd)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	s := serve.Serve{Catalog: path, Port: f.port, CacheDir: f.cacheDir, CacheIntegrity: enforce, CacheOnly: f.opm.cacheOnly,
		HoldOnLoadError: f.opm.holdOnLoadError(), WatchInterval: f.server.watchInterval, Reload: f.server.reload,
		Limits: f.server.limits, Logger: logger}
	s.Limits.SendBuffer = int64(f.server.sendBufferMB) << 20
	f.applyHTTP(&s)
	s.Open = func(ctx context.Context, ref string) (*input.Input, error) {
		in, err := f.imgFlags.resolve(ctx, ref, input.Catalog, "serve", stderr)
		return in, inputError(err, func(err error) error { return fmt.Errorf("open catalog: %w", err) })
	}
	s.OnSQLite = func(ctx context.Context, in *input.Input) error {
		return serveSQLite(ctx, stderr, path, in.Path, imageFlagArgs(cmd.Flags()), f.noWarning)
	}
	s.StartProfiler = func(ctx context.Context) (serve.Profiler, error) {
		return serve.StartPprof(ctx, serve.Pprof{Addr: f.opm.pprofAddr, CaptureStartup: f.opm.pprofCapture, Logger: logger,
			NotCaptured: "no start-up profile: --pprof-capture-profiles was not given"}), nil
	}
	_, err = s.Run(cmd.Context())
	return err
}

// check validates serve's flags and returns its logger and whether the
// cache's integrity is enforced.
func (f *serveFlags) check(cmd *cobra.Command) (*slog.Logger, bool, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return nil, false, usageError(fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel))
	}
	if f.opm.debug {
		level = slog.LevelDebug
	}
	if f.server.reload && f.server.watchInterval <= 0 {
		return nil, false, usageError(errors.New("--reload needs the watch: a positive --watch-interval"))
	}
	if err := f.checkHTTP(); err != nil {
		return nil, false, err
	}
	enforce, err := f.opm.enforceIntegrity(cmd.Flags(), f.cacheDir)
	if err != nil {
		return nil, false, err
	}
	return slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level})), enforce, nil
}

package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/registry"
	"github.com/operator-catalog/olmcat/registry/source"
)

func newServeCmd() *cobra.Command {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:   "serve <dir|index.db|image>",
		Short: "Serve a catalog with the operator-registry gRPC API",
		Long: `Serve a declarative config directory or a legacy sqlite index with the
operator-registry api.Registry gRPC API, as opm serve and opm registry serve did,
plus grpc.health.v1 and server reflection (grpcurl list works).

The port is bound first; health reports NOT_SERVING (and api.Registry calls
fail with Unavailable) until the catalog is loaded, then SERVING. A sqlite
file changed on disk under a running server turns health to NOT_SERVING
(restart to serve the new file).

A directory is validated and indexed package by package; bundle manifests
stay in the files and are read back per call, so the files must not change
while served (a changed file fails the calls that read it). --cache-dir keeps
a snapshot of the index (never the manifests) so the next start of unchanged
files skips validating and indexing them. A sqlite file is opened
read-only. An image reference is pulled and its catalog extracted to a
temporary directory first (see olmcat help for images in README.md).
SIGINT/SIGTERM stop the server gracefully.`,
		Example: `  olmcat serve ./catalog -p 50051
  olmcat serve ./catalog --cache-dir /var/cache/olmcat
  grpcurl -plaintext localhost:50051 api.Registry/ListPackages`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runServe(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.port, "port", "p", 50051, "TCP port to serve on (0 picks a free port)")
	fl.StringVar(&f.cacheDir, "cache-dir", "", "directory for a snapshot that makes restarts on unchanged declarative configs fast")
	fl.BoolVar(&f.noWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning (also "+noDeprecationWarningEnv+"=1)")
	fl.StringVar(&f.logLevel, "log-level", "info", "log level: debug, info, warn or error")
	f.imgFlags = addImageFlags(fl, true)
	return cmd
}

// serveFlags are the flags of olmcat serve.
type serveFlags struct {
	port      int
	cacheDir  string
	noWarning bool
	logLevel  string
	imgFlags  *imageFlags
}

// runServe serves the catalog at path until the command's context ends.
func runServe(cmd *cobra.Command, path string, f *serveFlags) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return usageError(fmt.Errorf("--log-level %q: want debug, info, warn or error", f.logLevel))
	}
	if f.port < 0 || f.port > 65535 {
		return usageError(fmt.Errorf("--port %d: want 0..65535", f.port))
	}
	stderr := cmd.ErrOrStderr()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	ctx := cmd.Context()
	if f.cacheDir != "" {
		// The snapshot is written there: never into the catalog.
		if err := pathcheck.Separate("cache directory", f.cacheDir, path); err != nil {
			return err
		}
	}
	in, err := source.Detect(path)
	if err != nil {
		return fmt.Errorf("open catalog: %w", err)
	}
	in, unpacked, err := f.imgFlags.localInput(ctx, in, false, stderr)
	if err != nil {
		return err
	}
	defer unpacked.Close()
	if err := refuseBundle(unpacked, "serve"); err != nil {
		return err
	}
	if in.Kind == source.KindSQLite && !f.noWarning {
		warnDeprecated(ctx, stderr, path, in.Ref)
	}

	// The f.port is bound before the catalog is loaded: a busy f.port
	// fails at once, and health reports NOT_SERVING while loading.
	lis, err := net.Listen("tcp", net.JoinHostPort("", strconv.Itoa(f.port)))
	if err != nil {
		return fmt.Errorf("listen on port %d: %w", f.port, err)
	}
	addr := lis.Addr().String()
	logger.Info("listening on "+addr+"; loading the catalog (health NOT_SERVING until loaded)", "address", addr, "catalog", path)
	load := func(ctx context.Context) (registry.Querier, error) {
		if in.Kind == source.KindDeclcfg {
			defer loadGCBudget()()
		}
		return source.OpenInput(ctx, in, source.WithCacheDir(f.cacheDir), source.WithLogger(logger))
	}
	restoreServing := func() {}
	defer func() { restoreServing() }()
	ready := func(registry.Querier) {
		if in.Kind == source.KindDeclcfg {
			restoreServing = servingGCBudget()
		}
		logger.Info("serving on "+addr, "address", addr, "catalog", path, "kind", string(in.Kind))
	}
	return registry.ServeLoading(ctx, lis, load, ready, registry.WithLogger(logger))
}

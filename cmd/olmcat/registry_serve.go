//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action/serve"
)

// newRegistryServeCmd is opm registry serve: the entry point of every
// sqlite index image opm built (CMD ["registry", "serve", "--database",
// "/database/index.db"]), served by olmcat's sqlite backend.
func newRegistryServeCmd() *cobra.Command {
	f := &serveFlags{logLevel: "info"}
	var db, port, timeout string
	var skipMigrate bool
	var notice *opmNotice
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve a legacy sqlite index or a catalog directory with the gRPC API (opm registry serve; deprecated)",
		Long: `Serve the legacy sqlite index --database with the operator-registry gRPC
API, health and reflection, as opm registry serve did: the entry point of
the index images opm index add built. The file is opened read-only at any
schema level (nothing is copied or migrated, so --skip-migrate changes
nothing). A catalog directory (what registry add -d writes where no file
was) is served as olmcat serve serves it. Prefer migrating the index and
serving the declarative config: the deprecation notice prints the two
commands.`,
		Example: `  olmcat registry serve --database /database/index.db
  olmcat registry serve -d index.db -p 50052 --timeout-seconds 600`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return serve.TerminationLog(f.opm.terminationLog).Write(runRegistryServe(cmd, f, notice, db, port, timeout))
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&db, "database", "d", "bundles.db", "legacy sqlite index or catalog directory to serve (read-only)")
	fl.StringVarP(&port, "port", "p", "50051", "TCP port to serve on (0 picks a free port)")
	fl.BoolVar(&skipMigrate, "skip-migrate", false, "accepted: olmcat reads every schema level read-only and never migrates")
	fl.StringVar(&timeout, "timeout-seconds", "infinite", "stop gracefully after this many seconds (0..65535, or infinite)")
	notice = addOPMNoticeFlag(fl)
	f.opm.addCommonFlags(fl)
	// opm registry serve reads a database file and has no image flags:
	// its own empty set, so that an image -d fails on the platform it
	// was not given, as it always has.
	f.imgFlags = &imageFlags{}
	f.addServerFlags(fl)
	return cmd
}

// runRegistryServe checks opm registry serve's flags and serves the
// database until the context ends or the timeout expires.
func runRegistryServe(cmd *cobra.Command, f *serveFlags, notice *opmNotice, db, port, timeout string) error {
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		return usageError(fmt.Errorf("--port %q: want 0..65535: %w", port, err))
	}
	f.port = int(p)
	var limit time.Duration
	if timeout != "infinite" {
		// opm parses a uint16: 70000 is out of range there too.
		n, err := strconv.ParseUint(timeout, 10, 16)
		if err != nil {
			return usageError(fmt.Errorf("--timeout-seconds %q: want 0..65535 or infinite: %w", timeout, err))
		}
		limit = time.Duration(n) * time.Second
	}
	st, err := os.Stat(db)
	if err != nil {
		return fmt.Errorf("--database: %w", err)
	}
	switch {
	case st.IsDir():
		// A catalog directory (what registry add -d makes of a path that
		// named nothing): served as olmcat serve would.
		notice.print(cmd, "olmcat serve "+shellQuote(db))
	case st.Mode().IsRegular():
		// The notice replaces serve's sqlite warning.
		notice.print(cmd, migrateCommand(db, ""), "olmcat serve "+shellQuote(suggestedOutputDir(db)))
	default:
		return fmt.Errorf("--database: %s is neither a regular file nor a catalog directory", db)
	}
	f.noWarning = true
	if limit == 0 && timeout == "infinite" {
		return runServe(cmd, db, f)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), limit)
	defer cancel()
	cmd.SetContext(ctx)
	err = runServe(cmd, db, f)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		fmt.Fprintf(cmd.ErrOrStderr(), "Timeout expired (--timeout-seconds %s). Gracefully stopped.\n", timeout)
	}
	return err
}

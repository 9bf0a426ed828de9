//go:build !slim

package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// registryEditCmd is what registry add|rm|prune|prune-stranded|
// deprecatetruncate share: -d names the catalog they read (a sqlite
// database is never written), --output the directory the declarative
// config is written to (default: -d, see target).
type registryEditCmd struct {
	database string
	output   string
	force    bool
	debug    bool
	img      *imageFlags
	notice   *opmNotice
	waitLock *waitLockFlag
}

func (c *registryEditCmd) register(cmd *cobra.Command, img *imageFlags) {
	c.registerDB(cmd, img, "bundles.db")
}

// registerDB registers the flags with -d defaulting to db (opm's
// deprecatetruncate defaulted to index.db, the others to bundles.db).
func (c *registryEditCmd) registerDB(cmd *cobra.Command, img *imageFlags, db string) {
	fl := cmd.Flags()
	fl.StringVarP(&c.database, "database", "d", db, "relative path to database file (read, never written)")
	fl.StringVar(&c.output, "output", "", "write the resulting declarative config catalog to `DIR` (default: -d itself when it is a catalog directory, updated in place, or names nothing yet; required for a sqlite -d, which is never written)")
	fl.BoolVar(&c.force, "force", false, "replace an existing non-empty --output directory")
	fl.BoolVar(&c.debug, "debug", false, "enable debug logging")
	c.img = img
	takesImages(cmd, imageInputFlags)
	c.notice = addOPMNoticeFlag(fl)
	c.waitLock = addWaitLockFlag(fl)
}

// steps are the FBC-native commands doing the job: the catalog of -d in
// a directory (where the result goes: --output, -d itself when it is a
// catalog directory or names nothing yet, else ./catalog), then what is
// specific to the command (a check when nothing is).
func (c *registryEditCmd) steps(cmd *cobra.Command, specific ...string) []string {
	out := c.output
	st, err := os.Stat(c.database)
	var s []string
	switch {
	case out == "" && (err != nil || st.IsDir()):
		out = c.database // a new catalog directory, or updated in place
		if err != nil {
			s = append(s, "mkdir "+shellQuote(out))
		}
	case out == "":
		out = "catalog"
		s = append(s, copyStepTo(c.database, imageFlagArgs(cmd.Flags()), out))
	case err != nil:
		s = append(s, "mkdir "+shellQuote(out))
	default:
		s = append(s, copyStepTo(c.database, imageFlagArgs(cmd.Flags()), out))
	}
	if len(specific) == 0 {
		specific = []string{"olmcat validate catalog"}
	}
	for _, step := range specific {
		s = append(s, strings.ReplaceAll(strings.ReplaceAll(step, " catalog", " "+shellQuote(out)), "catalog/", shellQuote(out)+"/"))
	}
	return s
}

// run prints the notice and applies op to -d: the result goes to
// --output, or without it to -d itself when that is a catalog directory
// (updated in place) or nothing yet (a new catalog directory); a sqlite
// file is never written, so it needs --output (exit 2, with the commands
// to run instead).
func (c *registryEditCmd) run(cmd *cobra.Command, missingOK bool, op func(src *indexSource) (catalogOp, error), specific ...string) error {
	steps := c.steps(cmd, specific...)
	c.notice.print(cmd, steps...)
	target, err := c.target()
	switch {
	case errors.Is(err, errSQLiteTarget):
		return usageError(fmt.Errorf("%s writes no sqlite database: pass --output DIR to write the resulting declarative config, or run: %s",
			cmd.CommandPath(), strings.Join(steps, " && ")))
	case err != nil:
		return &exitError{code: exitInvalid, err: fmt.Errorf("--database %s: %w", c.database, err)}
	}
	noteDaemonTools(cmd.Flags(), cmd.ErrOrStderr())
	ctx := cmd.Context()
	// Taken before -d is read: a second writer of the directory runs on
	// this one's result.
	out, inputs := c.database, []string(nil)
	if target == targetOutput {
		out, inputs = c.output, []string{c.database}
	}
	lock, err := c.waitLock.lock(cmd, out, inputs...)
	if err != nil {
		return err
	}
	defer lock.Release()
	if target == targetInPlace {
		if err := recoverInPlace(c.database, cmd.ErrOrStderr()); err != nil {
			return err
		}
	}
	src, err := openIndexSource(ctx, c.database, c.img, missingOK || target == targetNew, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	defer src.Close()
	o, err := op(src)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	switch target {
	case targetNew:
		fmt.Fprintf(stderr, "writing a new catalog directory at %s\n", c.database)
		return fillFrom(ctx, stderr, src, o)(c.database, false)
	case targetInPlace:
		return fillFrom(ctx, stderr, src, inPlace(o, c.database))(c.database, true)
	}
	return fillFrom(ctx, stderr, src, o)(c.output, c.force)
}

func newRegistryAddCmd(img *imageFlags) *cobra.Command {
	var (
		c       registryEditCmd
		bundles []string
		mode    addModeFlags
		skipTLS bool
	)
	cmd := &cobra.Command{
		Use:   "add",
		Short: "Add operator bundles to a catalog (reads an index.db, writes a declarative config)",
		Long: `Add bundles as opm v1.73's registry add did, without writing the database:
-d is read (a missing file is an empty catalog; a catalog directory works
too), the bundles are added with opm's graph update --mode, and the
declarative config opm migrate would make of the resulting database is
written to --output, or without it to -d: a new catalog directory where
-d named nothing, a catalog directory updated in place (a sqlite -d is
never written: pass --output). Deprecated: see the notice for the FBC-native
commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			imgArgs := imageFlagArgs(cmd.Flags())
			return c.run(cmd, true, func(*indexSource) (catalogOp, error) {
				if skipTLS {
					c.img.useHTTP = true
				}
				opts, err := mode.options()
				if err != nil {
					return catalogOp{}, err
				}
				return loadBundles(cmd.Context(), bundles, c.img, mode.permissive, cmd.ErrOrStderr(), opts...)
			}, "olmcat add catalog "+quoteAll(bundles)+mode.modeArg()+imgArgs)
		},
	}
	cmd.Flags().StringSliceVarP(&bundles, "bundle-images", "b", nil, "comma separated list of links to bundle image")
	mode.register(cmd)
	addDaemonToolFlag(cmd.Flags(), "container-tool", "c", "none", "tool to interact with container images (save, build, etc.). One of: [none, docker, podman]")
	c.register(cmd, img)
	cmd.Flags().BoolVar(&skipTLS, "skip-tls", false, "skip TLS certificate verification for container image registries while pulling bundles")
	_ = cmd.Flags().MarkDeprecated("skip-tls", "use --use-http and --skip-tls-verify instead")
	return cmd
}

func newRegistryRmCmd(img *imageFlags) *cobra.Command {
	var (
		c          registryEditCmd
		packages   []string
		permissive bool
	)
	cmd := &cobra.Command{
		Use:   "rm",
		Short: "Remove packages from a catalog (reads an index.db, writes a declarative config)",
		Long: `Remove packages as opm v1.73's registry rm did, without writing the
database: -d is read and the declarative config without the packages is
written to --output (default: -d, see add). Deprecated: see the notice for
the FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			names := packageList(packages)
			var rms []string
			for _, n := range names {
				rms = append(rms, "rm -r catalog/"+shellQuote(n))
			}
			return c.run(cmd, false, func(*indexSource) (catalogOp, error) { return removeOp(names, permissive, cmd.ErrOrStderr()), nil }, rms...)
		},
	}
	cmd.Flags().StringSliceVarP(&packages, "packages", "o", nil, "comma separated list of package names to be deleted")
	_ = cmd.MarkFlagRequired("packages")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	c.register(cmd, img)
	return cmd
}

func newRegistryPruneCmd(img *imageFlags) *cobra.Command {
	var (
		c          registryEditCmd
		packages   []string
		permissive bool
	)
	cmd := &cobra.Command{
		Use:   "prune",
		Short: "Prune a catalog of all but specified packages (reads an index.db, writes a declarative config)",
		Long: `Keep only the packages named, as opm v1.73's registry prune did, without
writing the database: -d is read and the declarative config is written to
--output (default: -d, see add). Deprecated: see the notice for the
FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			keep := packageList(packages)
			return c.run(cmd, false, func(*indexSource) (catalogOp, error) { return pruneOp(keep, cmd.ErrOrStderr()), nil }, keepOnlyStep("catalog", keep))
		},
	}
	cmd.Flags().StringSliceVarP(&packages, "packages", "p", nil, "comma separated list of package names to be kept")
	_ = cmd.MarkFlagRequired("packages")
	cmd.Flags().BoolVar(&permissive, "permissive", false, "allow registry load errors")
	c.register(cmd, img)
	return cmd
}

func newRegistryPruneStrandedCmd(img *imageFlags) *cobra.Command {
	var c registryEditCmd
	cmd := &cobra.Command{
		Use:   "prune-stranded",
		Short: "Prune a catalog of stranded bundles (reads an index.db, writes a declarative config)",
		Long: `Drop the bundles no channel holds, as opm v1.73's registry prune-stranded
did, without writing the database: -d is read and the declarative config is
written to --output (default: -d, see add; olmcat migrate leaves
stranded bundles out by itself). Deprecated: see the notice for the
FBC-native commands that do the same.`,
		Args: noArgsRequiredFlags,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return c.run(cmd, false, func(*indexSource) (catalogOp, error) { return pruneStrandedOp(cmd.ErrOrStderr()), nil })
		},
	}
	c.register(cmd, img)
	return cmd
}

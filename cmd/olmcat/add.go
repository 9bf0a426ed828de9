package main

import (
	"errors"
	"fmt"
	"os"
	"sort"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/migrate"
	"github.com/operator-catalog/olmcat/registry/source"
)

func newAddCmd() *cobra.Command {
	var (
		migrateLevel string
		imgFlags     *imageFlags
	)
	cmd := &cobra.Command{
		Use:   "add <dir> <bundle-image|bundle-dir>...",
		Short: "Add bundles to a declarative config catalog",
		Long: `Add renders each bundle (a bundle image, or a bundle directory with
manifests/ and metadata/) as olmcat render does and adds it to the catalog
in <dir>, as opm alpha add did: the package and channel blobs are created
when new (default channel from the bundle's annotations), the bundle is
added to every channel of its annotations with the replaces, skips and
olm.skipRange of its CSV, and its olm.bundle blob joins its package.

The whole result must pass validate, or nothing is written. Each changed
package folder is written anew (in its layout and format) beside the
catalog, and only once all are written are they swapped in by rename;
nothing else is touched. Catalogs whose
packages share files or folders are refused.`,
		Example: `  olmcat add ./catalog registry.example.com/ns/etcd-bundle:v0.9.4
  olmcat add ./catalog ./bundles/etcd.0.9.4 ./bundles/etcd.0.9.5`,
		Args: minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if l := migrate.Level(migrateLevel); l != migrate.MigrateLevelNone && l != migrate.MigrateLevelCSVMetadata {
				return usageError(fmt.Errorf("unknown --migrate-level %q (want %s or %s)", migrateLevel, migrate.MigrateLevelNone, migrate.MigrateLevelCSVMetadata))
			}
			return runAdd(cmd, args[0], args[1:], migrateLevel, imgFlags)
		},
	}
	cmd.Flags().StringVar(&migrateLevel, "migrate-level", string(migrate.MigrateLevelNone), string(migrate.MigrateLevelCSVMetadata)+" stores the bundles' olm.csv.metadata instead of their objects")
	imgFlags = addImageFlags(cmd.Flags(), false)
	return cmd
}

func runAdd(cmd *cobra.Command, dir string, bundles []string, migrateLevel string, imgFlags *imageFlags) error {
	ctx, stderr := cmd.Context(), cmd.ErrOrStderr()
	cfg, err := declcfg.LoadDir(ctx, dir)
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	changed := map[string]bool{}
	for _, arg := range bundles {
		in, err := source.Detect(arg)
		if err != nil {
			return &exitError{code: exitInvalid, err: fmt.Errorf("add %s: %w", arg, err)}
		}
		local, u, err := imgFlags.localInput(ctx, in, false, stderr)
		if err != nil {
			return err
		}
		ri := renderInput{Input: local, name: arg, unpacked: u, migrateLevel: migrateLevel}
		bundleDir, ref, ok := ri.bundleDir()
		if !ok {
			u.Close()
			return &exitError{code: exitInvalid, err: fmt.Errorf("add %s: not a bundle image or bundle directory (manifests/ and metadata/)", arg)}
		}
		b, meta, err := declcfg.BundleFromFS(os.DirFS(bundleDir), declcfg.WithBundleImage(ref),
			declcfg.WithCSVMetadata(migrateLevel == string(migrate.MigrateLevelCSVMetadata)),
			declcfg.WithBundleWarnings(func(msg string) { fmt.Fprintln(stderr, "warning:", msg) }))
		u.Close()
		if err != nil {
			return &exitError{code: exitInvalid, err: fmt.Errorf("add %s: %w", arg, err)}
		}
		changes, err := declcfg.AddBundle(cfg, b, meta)
		if err != nil {
			return &exitError{code: exitInvalid, err: err}
		}
		for _, c := range changes {
			fmt.Fprintln(stderr, c)
		}
		changed[b.Package] = true
	}
	if _, err := declcfg.ConvertToModel(cfg); err != nil {
		var ve *declcfg.ValidationError
		if errors.As(err, &ve) {
			for _, p := range ve.Problems {
				fmt.Fprintln(stderr, "  "+p.String())
			}
		}
		return &exitError{code: exitInvalid, err: fmt.Errorf("add: the catalog would not be valid; nothing was written: %w", err)}
	}
	pkgs := make([]string, 0, len(changed))
	for p := range changed {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	if err := declcfg.ReplacePackages(dir, cfg, pkgs); err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	fmt.Fprintf(stderr, "added %d bundle(s) to %s (packages %v)\n", len(bundles), dir, pkgs)
	return nil
}

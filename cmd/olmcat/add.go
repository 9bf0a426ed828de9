//go:build !slim

package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/internal/quote"
	"github.com/operator-catalog/olmcat/migrate"
)

func newAddCmd(img *imageFlags) *cobra.Command {
	var (
		migrateLevel string
		mode         string
		enableAlpha  bool
		waitLock     *waitLockFlag
	)
	cmd := &cobra.Command{
		Use:   "add <dir> <bundle-image|bundle-dir>...",
		Short: "Add bundles to a declarative config catalog",
		Long: `Add renders each bundle (a bundle image, or a bundle directory with
manifests/ and metadata/) as olmcat render does and adds it to its package
in the catalog in <dir> as opm v1.73's index add did, with its graph
update --mode:

  replaces          (default) the package's channels are recomputed from
                    the CSVs' replaces and skips: each channel is headed by
                    its highest version and holds what the head's replaces
                    chain and skips reach; the default channel is the one
                    the highest bundle's annotations name.
  semver            each bundle is inserted by version into the channels
                    of its annotations (CSV replaces and skips ignored);
                    its default channel annotation becomes the package's.
  semver-skippatch  semver, and a bundle also skips the lower patch
                    versions of its minor version.

With --enable-alpha (replaces mode) a bundle whose CSV annotation
olm.substitutesFor names another bundle substitutes for it, as opm's
--enable-alpha did: bundles replacing the substituted bundle replace the
substitute instead, and the substitute skips it and inherits its skips;
several substitutes of one bundle form a chain by version. Without the
flag such a bundle is refused.

Bundles are added lowest version first, whatever their order. The whole
result must pass validate, or nothing is written. Each changed package
folder is written anew (in its layout and format) beside the catalog, and
only once all are written are they swapped in by rename; nothing else is
touched. Catalogs whose packages share files or folders are refused.

Adds to one catalog run one at a time: each takes the catalog's write
lock before it reads the catalog, so a second add (or any other writer
of the catalog) waits, saying for which process, and then adds to the
first one's result; --wait-lock bounds the wait.`,
		Example: `  olmcat add ./catalog registry.example.com/ns/etcd-bundle:v0.9.4
  olmcat add ./catalog ./bundles/etcd.0.9.4 ./bundles/etcd.0.9.5 --mode semver`,
		Args: minArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if l := migrate.Level(migrateLevel); l != migrate.MigrateLevelNone && l != migrate.MigrateLevelCSVMetadata {
				return usageError(fmt.Errorf("unknown --migrate-level %q (want %s or %s)", migrateLevel, migrate.MigrateLevelNone, migrate.MigrateLevelCSVMetadata))
			}
			m, err := indexop.ParseMode(mode)
			if err != nil {
				return usageError(err)
			}
			lock, err := waitLock.lock(cmd, args[0])
			if err != nil {
				return err
			}
			defer lock.Release()
			return runAdd(cmd, args[0], args[1:], migrateLevel, img, indexop.WithMode(m), indexop.WithEnableAlpha(enableAlpha))
		},
	}
	cmd.Flags().StringVar(&migrateLevel, "migrate-level", string(migrate.MigrateLevelNone), string(migrate.MigrateLevelCSVMetadata)+" stores the bundles' olm.csv.metadata instead of their objects")
	cmd.Flags().StringVar(&mode, "mode", string(indexop.ModeReplaces), "graph update mode: replaces, semver or semver-skippatch")
	cmd.Flags().BoolVar(&enableAlpha, "enable-alpha", false, "apply the CSVs' olm.substitutesFor annotations (opm's alpha feature; refused without it)")
	takesImages(cmd, imageInputFlags)
	waitLock = addWaitLockFlag(cmd.Flags())
	return cmd
}

func runAdd(cmd *cobra.Command, dir string, bundles []string, migrateLevel string, imgFlags *imageFlags, opts ...indexop.Option) error {
	ctx, stderr := cmd.Context(), cmd.ErrOrStderr()
	swept, err := declcfg.RecoverCatalog(dir)
	for _, s := range swept {
		fmt.Fprintln(stderr, s)
	}
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	cfg, err := declcfg.LoadDir(ctx, dir)
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	byPkg := map[string][]indexop.NewBundle{}
	for _, arg := range bundles {
		nb, err := loadBundle(ctx, arg, imgFlags, migrateLevel, stderr)
		if err != nil {
			return err
		}
		byPkg[nb.Bundle.Package] = append(byPkg[nb.Bundle.Package], nb)
	}
	groups := declcfg.SplitByPackage(cfg)
	pkgs := slices.Sorted(maps.Keys(byPkg))
	// The changes are told once they are in the catalog: a write that
	// fails after them would contradict them.
	var changes []string
	for _, pkg := range pkgs {
		res, more, err := indexop.Add(pkg, groups[pkg], byPkg[pkg], opts...)
		if err != nil {
			return &exitError{code: exitInvalid, err: fmt.Errorf("add: %w; nothing was written", err)}
		}
		changes = append(changes, more...)
		groups[pkg] = res
	}
	merged := &declcfg.DeclarativeConfig{}
	for _, name := range slices.Sorted(maps.Keys(groups)) {
		merged.Merge(groups[name])
	}
	if _, err := model.FromDeclcfg(merged); err != nil {
		// The problems are in err's text: printed once, by main.
		return &exitError{code: exitInvalid, err: fmt.Errorf("add: the catalog would not be valid; nothing was written: %w", err)}
	}
	if err := declcfg.ReplacePackages(dir, merged, pkgs); err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	for _, c := range changes {
		fmt.Fprintln(stderr, c)
	}
	quoted := make([]string, len(pkgs))
	for i, p := range pkgs {
		quoted[i] = quote.Name(p)
	}
	fmt.Fprintf(stderr, "added %d bundle(s) to %s (packages %v)\n", len(bundles), quote.Name(dir), quoted)
	return nil
}

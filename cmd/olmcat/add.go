//go:build !slim

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
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
			res, err := action.Add{Env: actionEnv(cmd, img, waitLock), Dir: args[0], Bundles: args[1:], Mode: indexop.Mode(mode),
				EnableAlpha: enableAlpha, CSVMetadata: migrate.Level(migrateLevel) == migrate.MigrateLevelCSVMetadata}.Run(cmd.Context())
			if err != nil {
				return actionError(err, "add")
			}
			stderr := cmd.ErrOrStderr()
			for _, c := range res.Changes {
				fmt.Fprintln(stderr, c)
			}
			quoted := make([]string, len(res.Packages))
			for i, p := range res.Packages {
				quoted[i] = quote.Name(p)
			}
			fmt.Fprintf(stderr, "added %d bundle(s) to %s (packages %v)\n", res.Bundles, quote.Name(args[0]), quoted)
			return nil
		},
	}
	cmd.Flags().StringVar(&migrateLevel, "migrate-level", string(migrate.MigrateLevelNone), string(migrate.MigrateLevelCSVMetadata)+" stores the bundles' olm.csv.metadata instead of their objects")
	cmd.Flags().StringVar(&mode, "mode", string(indexop.ModeReplaces), "graph update mode: replaces, semver or semver-skippatch")
	cmd.Flags().BoolVar(&enableAlpha, "enable-alpha", false, "apply the CSVs' olm.substitutesFor annotations (opm's alpha feature; refused without it)")
	takesImages(cmd, imageInputFlags)
	waitLock = addWaitLockFlag(cmd.Flags())
	return cmd
}

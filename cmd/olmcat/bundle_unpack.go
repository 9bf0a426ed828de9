//go:build !slim

package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/unpack"
)

// clusterUnpackFlags are bundle unpack's flags: the action's options
// and those the command turns into them.
type clusterUnpackFlags struct {
	action.BundleUnpack
	catalogSource, kubeconfig, toolImage string
}

// newBundleUnpackCmd is olmcat bundle unpack: a bundle image unpacked on
// a cluster as OLM's catalog operator does, by a Job (package unpack)
// that writes it into a ConfigMap. (olmcat unpack is a catalog image to a
// folder, olmcat alpha bundle unpack a bundle image to a local
// directory.)
func newBundleUnpackCmd() *cobra.Command {
	var fl clusterUnpackFlags
	cmd := &cobra.Command{
		Use:   "unpack <bundle-image> -n <namespace> --tool-image <olmcat-image>",
		Short: "Unpack a bundle image on a cluster into a ConfigMap with a Job, as OLM does",
		Long: `Unpack ensures the objects OLM uses to unpack a bundle image, all named by
the sha256 of the image reference: a ConfigMap (owned by --catalog-source
when given), and, owned by the ConfigMap, a ServiceAccount, a Role allowing
it to write that ConfigMap only, a RoleBinding, and a Job. The Job's roles
are OLM's: util (--util-image) copies this toolkit's static binary into the
bundle image's pod, which copies the bundle out (bundle copy); opm
(--opm-image) writes it into the ConfigMap (bundle extract -z). Both images
must hold olmcat at --tool-binary: olmcat's own image (make image) does;
--tool-image names it for both roles. There is no default image.

The ConfigMap holds what OLM's unpacker writes; --extra-metadata adds the
bundle's other metadata files and annotations. Running it again reuses
everything, keeps a ConfigMap that holds the bundle, replaces a Job whose
spec drifted (fields admission adds are no drift), and with
--min-retry-interval replaces a Job that failed longer ago. A Job of OLM's
catalog operator of the same name is never deleted: its result is reported.

It prints the BundleLookup state as JSON: BundleLookupPending with reason
CatalogSourceMissing, JobNotStarted or JobIncomplete, BundleLookupFailed
with the Job's failure reason (exit 1), or no condition once unpacked. With
--wait it polls until the lookup is no longer pending. Then
"olmcat bundle load <namespace>/<configMap>" prints the bundle; --cleanup
deletes every object once the bundle loaded.`,
		Example: `  olmcat bundle unpack example/etcd-bundle:v0.9.2 -n operators --catalog-source operators/community --tool-image example/olmcat:v1 --wait`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runClusterUnpack(cmd, args[0], &fl)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&fl.Namespace, "namespace", "n", "", "namespace of the unpack objects (the CatalogSource's)")
	f.StringVar(&fl.catalogSource, "catalog-source", "", "owning CatalogSource as <namespace>/<name>; its spec.secrets become the Job's pull secrets")
	f.StringVarP(&fl.kubeconfig, "kubeconfig", "k", "", "kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	f.StringVar(&fl.UtilImage, "util-image", "", "image of the Job's util role, holding olmcat at --tool-binary (make image builds one)")
	f.StringVar(&fl.OpmImage, "opm-image", "", "image of the Job's opm role (extract), holding olmcat at --tool-binary")
	f.StringVar(&fl.toolImage, "tool-image", "", "image for both roles, where --util-image or --opm-image is not given")
	f.StringVar(&fl.ToolBinary, "tool-binary", unpack.DefaultToolBinary, "path of olmcat inside the role images")
	f.StringArrayVar(&fl.PullSecrets, "pull-secret", nil, "pull secret of the namespace for the Job's images (repeatable), after the CatalogSource's")
	f.Int64Var(&fl.RunAsUser, "run-as-user", unpack.DefaultRunAsUser, "pod runAsUser (with runAsNonRoot); 0 or less sets neither, as OLM without --set-workload-user-id")
	f.DurationVar(&fl.Timeout, "timeout", unpack.DefaultTimeout, "unpack Job deadline (activeDeadlineSeconds, rounded up to seconds); 0 for none")
	f.DurationVar(&fl.MinRetryInterval, "min-retry-interval", 0, "replace a failed Job that failed at least this long ago (OLM's bundle-unpack-min-retry-interval); 0 never")
	f.BoolVar(&fl.ExtraMetadata, "extra-metadata", false, "also store the bundle's other metadata files and annotations (not written by OLM)")
	f.BoolVar(&fl.Cleanup, "cleanup", false, "delete every unpack object once the bundle loaded (not with --catalog-source)")
	f.BoolVar(&fl.Wait, "wait", false, "wait until the bundle is unpacked or the Job failed")
	f.DurationVar(&fl.WaitTimeout, "wait-timeout", 0, "give up waiting after this long (default --timeout plus one minute)")
	f.DurationVar(&fl.Poll, "poll-interval", 2*time.Second, "how often --wait checks the Job")
	return cmd
}

func runClusterUnpack(cmd *cobra.Command, image string, fl *clusterUnpackFlags) error {
	switch {
	case fl.Namespace == "":
		return usageError(fmt.Errorf("-n/--namespace is required"))
	case fl.Cleanup && fl.catalogSource != "":
		return usageError(fmt.Errorf("--cleanup deletes the ConfigMap OLM reads for --catalog-source; use it without --catalog-source"))
	}
	u := fl.BundleUnpack
	u.Image, u.UtilImage, u.OpmImage = image, cmp.Or(u.UtilImage, fl.toolImage), cmp.Or(u.OpmImage, fl.toolImage)
	if fl.catalogSource != "" {
		ns, name, err := splitRef(fl.catalogSource, "--catalog-source")
		if err != nil {
			return err
		}
		u.CatalogSource = &unpack.CatalogSourceRef{Namespace: ns, Name: name}
	}
	stderr := cmd.ErrOrStderr()
	var err error
	if u.Clients, err = unpack.Connect(fl.kubeconfig, stderr); err != nil {
		return err
	}
	if isTerminal(stderr) {
		// The action tells only the states it waits through: progress,
		// shown on a terminal only.
		u.Log = lineWriter(stderr)
	}
	res, err := u.Run(cmd.Context())
	var missing *unpack.MissingImageError
	if errors.As(err, &missing) {
		return usageError(fmt.Errorf("%w; build olmcat's image with make image (IMAGE=<ref> pushes it) and pass it as --tool-image, or as --util-image and --opm-image", err))
	}
	if res.Lookup != nil {
		if err := reportLookup(cmd.OutOrStdout(), res.Lookup); err != nil {
			return err
		}
	}
	if err != nil {
		return actionError(err, "bundle unpack")
	}
	if u.Cleanup && !res.CleanedUp {
		fmt.Fprintf(stderr, "not cleaned up: the bundle is not unpacked yet (run again with --cleanup, or with --wait)\n")
	}
	return nil
}

// isTerminal says whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

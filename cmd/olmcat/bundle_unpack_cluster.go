//go:build !slim

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/operator-catalog/olmcat/unpack"
)

// clusterUnpackResult is the -o json result of bundle unpack.
type clusterUnpackResult struct {
	*unpack.BundleLookup
	ConfigMap string `json:"configMap"`
	Bundle    string `json:"bundle,omitempty"`
}

// clusterUnpackFlags are bundle unpack's flags.
type clusterUnpackFlags struct {
	namespace, catalogSource, kubeconfig string
	utilImage, opmImage, toolImage       string
	toolBinary                           string
	pullSecrets                          []string
	runAsUser                            int64
	wait, cleanup, extra                 bool
	timeout, waitTimeout, poll, retry    time.Duration
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
			return runClusterUnpack(cmd, args[0], fl)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&fl.namespace, "namespace", "n", "", "namespace of the unpack objects (the CatalogSource's)")
	f.StringVar(&fl.catalogSource, "catalog-source", "", "owning CatalogSource as <namespace>/<name>; its spec.secrets become the Job's pull secrets")
	f.StringVarP(&fl.kubeconfig, "kubeconfig", "k", "", "kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	f.StringVar(&fl.utilImage, "util-image", "", "image of the Job's util role, holding olmcat at --tool-binary (make image builds one)")
	f.StringVar(&fl.opmImage, "opm-image", "", "image of the Job's opm role (extract), holding olmcat at --tool-binary")
	f.StringVar(&fl.toolImage, "tool-image", "", "image for both roles, where --util-image or --opm-image is not given")
	f.StringVar(&fl.toolBinary, "tool-binary", unpack.DefaultToolBinary, "path of olmcat inside the role images")
	f.StringArrayVar(&fl.pullSecrets, "pull-secret", nil, "pull secret of the namespace for the Job's images (repeatable), after the CatalogSource's")
	f.Int64Var(&fl.runAsUser, "run-as-user", unpack.DefaultRunAsUser, "pod runAsUser (with runAsNonRoot); 0 or less sets neither, as OLM without --set-workload-user-id")
	f.DurationVar(&fl.timeout, "timeout", unpack.DefaultTimeout, "unpack Job deadline (activeDeadlineSeconds, rounded up to seconds); 0 for none")
	f.DurationVar(&fl.retry, "min-retry-interval", 0, "replace a failed Job that failed at least this long ago (OLM's bundle-unpack-min-retry-interval); 0 never")
	f.BoolVar(&fl.extra, "extra-metadata", false, "also store the bundle's other metadata files and annotations (not written by OLM)")
	f.BoolVar(&fl.cleanup, "cleanup", false, "delete every unpack object once the bundle loaded (not with --catalog-source)")
	f.BoolVar(&fl.wait, "wait", false, "wait until the bundle is unpacked or the Job failed")
	f.DurationVar(&fl.waitTimeout, "wait-timeout", 0, "give up waiting after this long (default --timeout plus one minute)")
	f.DurationVar(&fl.poll, "poll-interval", 2*time.Second, "how often --wait checks the Job")
	return cmd
}

// options turns the flags into Launch options.
func (fl clusterUnpackFlags) options() ([]unpack.LaunchOption, error) {
	util, opm := fl.utilImage, fl.opmImage
	if util == "" {
		util = fl.toolImage
	}
	if opm == "" {
		opm = fl.toolImage
	}
	opts := []unpack.LaunchOption{
		unpack.WithUtilImage(util), unpack.WithOpmImage(opm), unpack.WithToolBinary(fl.toolBinary),
		unpack.WithTimeout(fl.timeout), unpack.WithRunAsUser(fl.runAsUser), unpack.WithPullSecrets(fl.pullSecrets...),
		unpack.WithMinRetryInterval(fl.retry), unpack.WithExtraMetadata(fl.extra),
	}
	if fl.catalogSource != "" {
		ns, name, err := splitRef(fl.catalogSource, "--catalog-source")
		if err != nil {
			return nil, err
		}
		opts = append(opts, unpack.WithCatalogSource(unpack.CatalogSourceRef{Namespace: ns, Name: name}))
	}
	return opts, nil
}

func runClusterUnpack(cmd *cobra.Command, image string, fl clusterUnpackFlags) error {
	switch {
	case fl.namespace == "":
		return usageError(fmt.Errorf("-n/--namespace is required"))
	case fl.cleanup && fl.catalogSource != "":
		return usageError(fmt.Errorf("--cleanup deletes the ConfigMap OLM reads for --catalog-source; use it without --catalog-source"))
	}
	opts, err := fl.options()
	if err != nil {
		return err
	}
	clients, err := bundleClients(fl.kubeconfig, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	lookup, err := unpack.Launch(cmd.Context(), clients, image, fl.namespace, opts...)
	var missing *unpack.MissingImageError
	if errors.As(err, &missing) {
		return usageError(fmt.Errorf("bundle unpack %s: %w; build olmcat's image with make image (IMAGE=<ref> pushes it) and pass it as --tool-image, or as --util-image and --opm-image", image, err))
	}
	if err != nil {
		return fmt.Errorf("bundle unpack %s: %w", image, err)
	}
	if fl.wait && lookup.Pending() {
		limit := fl.waitTimeout
		if limit == 0 {
			limit = fl.timeout + time.Minute
		}
		lookup, err = waitUnpacked(cmd.Context(), clients, image, fl.namespace, opts, limit, fl.poll, cmd.ErrOrStderr())
		if err != nil {
			return fmt.Errorf("bundle unpack %s: %w", image, err)
		}
	}
	if err := reportLookup(cmd.OutOrStdout(), lookup); err != nil {
		return err
	}
	if !fl.cleanup {
		return nil
	}
	if lookup.Manifest == nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "not cleaned up: the bundle is not unpacked yet (run again with --cleanup, or with --wait)\n")
		return nil
	}
	if err := unpack.Cleanup(cmd.Context(), clients, image, fl.namespace); err != nil {
		return fmt.Errorf("bundle unpack %s: cleanup: %w", image, err)
	}
	return nil
}

// waitUnpacked polls the lookup until it is no longer pending, showing
// each new state on a terminal.
func waitUnpacked(ctx context.Context, clients unpack.Clients, image, namespace string, opts []unpack.LaunchOption,
	limit, poll time.Duration, stderr io.Writer) (*unpack.BundleLookup, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	show := isTerminal(stderr)
	last := ""
	for {
		lookup, err := unpack.Lookup(ctx, clients, image, namespace, opts...)
		if err == nil && lookup.Pending() && lookup.Conditions[0].Reason == unpack.ReasonJobNotStarted {
			// The Job is gone or being deleted (its TTL, a cleanup):
			// Launch waits for it and starts a fresh one.
			lookup, err = unpack.Launch(ctx, clients, image, namespace, opts...)
		}
		if err != nil {
			return nil, err
		}
		if !lookup.Pending() {
			return lookup, nil
		}
		if c := lookup.Conditions[0]; show && c.Reason+c.Message != last {
			last = c.Reason + c.Message
			fmt.Fprintf(stderr, "waiting: %s: %s\n", c.Reason, c.Message)
		}
		select {
		case <-ctx.Done():
			c := lookup.Conditions[0]
			return nil, fmt.Errorf("still pending after %s (%s: %s); run again to keep waiting (the Job keeps running until its deadline)", limit, c.Reason, c.Message)
		case <-time.After(poll):
		}
	}
}

// reportLookup prints the lookup as JSON and fails when it failed.
func reportLookup(w io.Writer, lookup *unpack.BundleLookup) error {
	res := clusterUnpackResult{BundleLookup: lookup, ConfigMap: lookup.Namespace + "/" + lookup.Name}
	if lookup.Manifest != nil {
		res.Bundle = lookup.Manifest.Bundle.Name
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	if c := lookup.Failed(); c != nil {
		return fmt.Errorf("unpacking %s failed: %s: %s; %s", lookup.Image, c.Reason, c.Message, retryHint(lookup))
	}
	return nil
}

// retryHint says how to unpack again after a failure.
func retryHint(l *unpack.BundleLookup) string {
	job := l.Namespace + "/" + l.Name
	switch {
	case l.ManagedByOLM:
		return fmt.Sprintf("job %s is OLM's catalog operator's, which retries it when the OperatorGroup has the operatorframework.io/bundle-unpack-min-retry-interval annotation; or delete the job and run again", job)
	case l.Failed().Reason == unpack.ReasonInvalidBundle:
		// The Job succeeded: only a new ConfigMap makes a new Job.
		return fmt.Sprintf("to retry once the bundle image is fixed, delete configmap %s (the garbage collector removes the objects it owns) and run again", job)
	}
	return fmt.Sprintf("to retry, run again with --min-retry-interval=1s (a fresh Job replaces one that failed longer ago), or delete job %s and run again", job)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

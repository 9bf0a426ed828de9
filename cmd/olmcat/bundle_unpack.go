//go:build !slim

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/operator-catalog/olmcat/unpack"
)

// unpackResult is the -o json result of bundle unpack.
type unpackResult struct {
	*unpack.BundleLookup
	ConfigMap string `json:"configMap"`
	Bundle    string `json:"bundle,omitempty"`
}

func newBundleUnpackCmd() *cobra.Command {
	var (
		namespace, catalogSource, kubeconfig string
		toolImage, toolBinary                string
		wait                                 bool
		timeout, waitTimeout, poll           time.Duration
	)
	cmd := &cobra.Command{
		Use:   "unpack <bundle-image> -n <namespace>",
		Short: "Unpack a bundle image on a cluster into a ConfigMap with a Job, as OLM does",
		Long: `Unpack ensures the objects OLM uses to unpack a bundle image, all named by
the sha256 of the image reference: a ConfigMap (owned by --catalog-source
when given), a ServiceAccount, a Role allowing it to write that ConfigMap
only, a RoleBinding, and a Job that copies this toolkit's static binary
from --tool-image into the bundle image's pod, copies the bundle out of the
image (bundle copy) and writes it into the ConfigMap (bundle extract -z).
Running it again reuses everything and replaces a Job whose spec drifted.

It prints the BundleLookup state as JSON: BundleLookupPending with reason
CatalogSourceMissing, JobNotStarted or JobIncomplete, BundleLookupFailed
with the Job's failure reason (exit 1), or no condition once unpacked. With
--wait it polls until the lookup is no longer pending. Then
"olmcat bundle load <namespace>/<configMap>" prints the bundle.`,
		Example: `  olmcat bundle unpack example/etcd-bundle:v0.9.2 -n operators --catalog-source operators/community --wait`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if namespace == "" {
				return usageError(fmt.Errorf("-n/--namespace is required"))
			}
			opts := []unpack.LaunchOption{unpack.WithToolImage(toolImage), unpack.WithToolBinary(toolBinary), unpack.WithTimeout(timeout)}
			if catalogSource != "" {
				ns, name, err := splitRef(catalogSource, "--catalog-source")
				if err != nil {
					return err
				}
				opts = append(opts, unpack.WithCatalogSource(unpack.CatalogSourceRef{Namespace: ns, Name: name}))
			}
			clients, err := bundleClients(kubeconfig, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			image := args[0]
			lookup, err := unpack.Launch(cmd.Context(), clients, image, namespace, opts...)
			if err != nil {
				return fmt.Errorf("bundle unpack %s: %w", image, err)
			}
			if wait && lookup.Pending() {
				if waitTimeout == 0 {
					waitTimeout = timeout + time.Minute
				}
				lookup, err = waitUnpacked(cmd.Context(), clients, image, namespace, opts, waitTimeout, poll, cmd.ErrOrStderr())
				if err != nil {
					return fmt.Errorf("bundle unpack %s: %w", image, err)
				}
			}
			return reportLookup(cmd.OutOrStdout(), lookup)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&namespace, "namespace", "n", "", "namespace of the unpack objects (the CatalogSource's)")
	f.StringVar(&catalogSource, "catalog-source", "", "owning CatalogSource as <namespace>/<name>; its spec.secrets become the Job's pull secrets")
	f.StringVarP(&kubeconfig, "kubeconfig", "k", "", "kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	f.StringVar(&toolImage, "tool-image", unpack.DefaultToolImage, "image holding this toolkit's static binary")
	f.StringVar(&toolBinary, "tool-binary", unpack.DefaultToolBinary, "path of the binary inside --tool-image")
	f.DurationVar(&timeout, "timeout", unpack.DefaultTimeout, "unpack Job deadline (activeDeadlineSeconds); 0 for none")
	f.BoolVar(&wait, "wait", false, "wait until the bundle is unpacked or the Job failed")
	f.DurationVar(&waitTimeout, "wait-timeout", 0, "give up waiting after this long (default --timeout plus one minute)")
	f.DurationVar(&poll, "poll-interval", 2*time.Second, "how often --wait checks the Job")
	return cmd
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
			return nil, fmt.Errorf("still pending after %s (%s: %s)", limit, c.Reason, c.Message)
		case <-time.After(poll):
		}
	}
}

// reportLookup prints the lookup as JSON and fails when it failed.
func reportLookup(w io.Writer, lookup *unpack.BundleLookup) error {
	res := unpackResult{BundleLookup: lookup, ConfigMap: lookup.Namespace + "/" + lookup.Name}
	if lookup.Manifest != nil {
		res.Bundle = lookup.Manifest.Bundle.Name
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	if c := lookup.Failed(); c != nil {
		return fmt.Errorf("unpacking %s failed: %s: %s", lookup.Image, c.Reason, c.Message)
	}
	return nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

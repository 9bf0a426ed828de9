//go:build !slim

package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/declcfg"
)

func newBundleLoadCmd() *cobra.Command {
	var kubeconfig, output string
	cmd := &cobra.Command{
		Use:   "load <namespace>/<configmap>",
		Short: "Print a bundle ConfigMap as an olm.bundle blob",
		Long: `Load reads a ConfigMap written by bundle extract (or opm), decodes its
entries (plain or gzip+base64), identifies every object by its content and
prints the bundle as the olm.bundle blob opm render gives for it, ready to be
appended to a declarative config. An entry that is not a Kubernetes object
or a PackageManifest is an error naming its key. A PackageManifest in the
ConfigMap gives the package and channels of a bundle without bundle
annotations (the package-manifest layout); otherwise it has no place in the
blob. Either way it is reported on stderr.`,
		Example: `  olmcat bundle load operators/etcd-bundle >> catalog/etcd/catalog.json`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := declcfg.ParseFormat(output)
			if err != nil {
				return usageError(err)
			}
			cm, err := fetchConfigMap(cmd, kubeconfig, args[0])
			if err != nil {
				return fmt.Errorf("bundle load: %w", err)
			}
			res, err := action.BundleLoad{Env: actionEnv(cmd, nil, nil), ConfigMap: cm}.Run(cmd.Context())
			if errors.Is(err, action.ErrNoBundleMetadata) {
				return missingMetadata(args[0])
			}
			if err != nil {
				return actionError(err, "bundle load")
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			if err := declcfg.WriteStream(w, &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{res.Bundle}}, format); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&kubeconfig, "kubeconfig", "k", "", "kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	cmd.Flags().StringVarP(&output, "output", "o", string(declcfg.FormatJSON), "output format: json or yaml")
	return cmd
}

// missingMetadata explains a ConfigMap that holds a bundle's manifests
// but not its metadata (kubectl create configmap --from-file=manifests/):
// without the package and channels there is no olm.bundle blob.
func missingMetadata(ref string) error {
	ns, name, _ := strings.Cut(ref, "/")
	return fmt.Errorf(`bundle load %s: the ConfigMap holds manifests but no bundle metadata: no %s annotation, no annotations.yaml entry and no PackageManifest, so the bundle's package and channels are unknown. Make it from the bundle directory with one of
  olmcat bundle extract -m <bundle-dir> -n %s -c %s     (into an existing ConfigMap)
  kubectl create configmap %s -n %s --from-file=<bundle-dir>/manifests --from-file=<bundle-dir>/metadata
or add the annotations to it:
  kubectl annotate configmap %s -n %s %s=<package> %s=<channel>[,<channel>]`,
		ref, annotation.Package, ns, name, name, ns, name, ns, annotation.Package, annotation.Channels)
}

package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/unpack"
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
ConfigMap has no place in the blob: it is reported on stderr.`,
		Example: `  olmcat bundle load operators/etcd-bundle >> catalog/etcd/catalog.json`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := declcfg.ParseFormat(output)
			if err != nil {
				return usageError(err)
			}
			ns, name, err := splitRef(args[0], "configmap")
			if err != nil {
				return err
			}
			clients, err := bundleClients(kubeconfig)
			if err != nil {
				return err
			}
			cm, err := clients.Kube.CoreV1().ConfigMaps(ns).Get(cmd.Context(), name, metav1.GetOptions{})
			if err != nil {
				return fmt.Errorf("bundle load: %w", err)
			}
			m, err := unpack.Load(cm)
			if err != nil {
				return fmt.Errorf("bundle load: %w", err)
			}
			b, err := bundleBlob(m.Bundle)
			if err != nil {
				return fmt.Errorf("bundle load %s: %w", args[0], err)
			}
			if pm := m.PackageManifest; pm != nil {
				fmt.Fprintf(cmd.ErrOrStderr(), "note: %s holds the PackageManifest of package %s (%d channels, default %q), not part of the olm.bundle blob\n",
					args[0], pm.PackageName, len(pm.Channels), pm.DefaultChannel)
			}
			w := bufio.NewWriter(cmd.OutOrStdout())
			if err := declcfg.WriteStream(w, &declcfg.DeclarativeConfig{Bundles: []declcfg.Bundle{b}}, format); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVarP(&kubeconfig, "kubeconfig", "k", "", "kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	cmd.Flags().StringVarP(&output, "output", "o", string(declcfg.FormatJSON), "output format: json or yaml")
	return cmd
}

// bundleBlob renders a loaded bundle as opm render renders a bundle image:
// the image recorded in the ConfigMap is the blob's image.
func bundleBlob(b *unpack.Bundle) (declcfg.Bundle, error) {
	fsys, err := b.FS()
	if err != nil {
		return declcfg.Bundle{}, err
	}
	blob, _, err := declcfg.BundleFromFS(fsys, declcfg.WithBundleImage(b.Image))
	return blob, err
}

//go:build !slim

package main

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
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
			m, err := unpack.Load(cm)
			if err != nil {
				return fmt.Errorf("bundle load: %w", err)
			}
			if pm := m.PackageManifest; pm != nil {
				if fillFromPackageManifest(m) {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s has no bundle annotations: package %s, channels %q and default channel %q taken from its PackageManifest\n",
						args[0], pm.PackageName, m.Bundle.Annotations[annotation.Channels], pm.DefaultChannel)
				} else {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: %s holds the PackageManifest of package %s (%d channels, default %q), not part of the olm.bundle blob\n",
						args[0], pm.PackageName, len(pm.Channels), pm.DefaultChannel)
				}
			}
			if m.Bundle.Annotations[annotation.Package] == "" {
				return missingMetadata(args[0])
			}
			b, err := bundleBlob(m.Bundle)
			if err != nil {
				return fmt.Errorf("bundle load %s: %w", args[0], err)
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

// bundleBlob renders a loaded bundle as opm render renders a bundle image:
// the image recorded in the ConfigMap is the blob's image.
func bundleBlob(b *unpack.Bundle) (declcfg.Bundle, error) {
	fsys, err := b.FS()
	if err != nil {
		return declcfg.Bundle{}, err
	}
	blob, _, err := bundle.FromFS(fsys, bundle.WithImage(b.Image))
	return blob, err
}

// fillFromPackageManifest gives a bundle in the package-manifest layout
// (a PackageManifest, no annotations.yaml) the annotations a bundle image
// would carry: the package, the channels whose head is this CSV (every
// channel when none is) and the default channel. It reports whether it did.
func fillFromPackageManifest(m *unpack.Manifest) bool {
	pm, b := m.PackageManifest, m.Bundle
	if pm == nil || b.Annotations[annotation.Package] != "" {
		return false
	}
	var heads, all []string
	for _, c := range pm.Channels {
		all = append(all, c.Name)
		if c.CurrentCSV == b.Name {
			heads = append(heads, c.Name)
		}
	}
	if len(heads) == 0 {
		heads = all
	}
	if b.Annotations == nil {
		b.Annotations = map[string]string{}
	}
	b.Annotations[annotation.Package] = pm.PackageName
	b.Annotations[annotation.Channels] = strings.Join(heads, ",")
	if pm.DefaultChannel != "" {
		b.Annotations[annotation.DefaultChannel] = pm.DefaultChannel
	}
	return true
}

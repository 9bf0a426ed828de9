//go:build !slim

package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/unpack"
)

func newBundleLocalCmd() *cobra.Command {
	var kubeconfig, root, name string
	var force bool
	cmd := &cobra.Command{
		Use:   "local <namespace>/<configmap> --root <dir>",
		Short: "Store a ConfigMap of Kubernetes objects as a local bundle source (<root>/<name>.tar.gz)",
		Long: `Local stores a ConfigMap (e.g. one made with kubectl create configmap
--from-file=manifests/) as a local bundle source: <root>/<name>.tar.gz with
every entry as manifests/<key>. Every entry must hold Kubernetes objects;
keys and names that would leave <root> are refused. The archive is written
to a temp file and renamed into place; an existing one is kept unless
--force. It prints the archive's path.`,
		Example: `  olmcat bundle local rukpak-system/my-manifests --root /var/cache/bundles --name my-bundle`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if root == "" {
				return usageError(fmt.Errorf("--root is required"))
			}
			cm, err := fetchConfigMap(cmd, kubeconfig, args[0])
			if err != nil {
				return fmt.Errorf("bundle local: %w", err)
			}
			if name == "" {
				name = cm.Name
			}
			path, err := unpack.WriteLocal(cm, root, unpack.WithBundleName(name), unpack.WithForce(force),
				unpack.WithOnSwept(func(dir string) {
					fmt.Fprintf(cmd.ErrOrStderr(), "note: removed abandoned temporary directory %s (left by an earlier run that was killed)\n", dir)
				}))
			if err != nil {
				return fmt.Errorf("bundle local: %w", err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), path)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&kubeconfig, "kubeconfig", "k", "", "kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	f.StringVar(&root, "root", "", "directory to store <name>.tar.gz in")
	f.StringVar(&name, "name", "", "bundle name (default the ConfigMap's name)")
	f.BoolVar(&force, "force", false, "replace an existing archive")
	return cmd
}

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/operator-catalog/olmcat/unpack"
)

func newBundleCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bundle",
		Short: "Unpack bundle images on a cluster through ConfigMaps, and read those ConfigMaps back",
		Long: `The bundle commands move operator bundles through a Kubernetes cluster as
OLM does: "bundle unpack" launches a Job that runs inside the bundle image
("bundle copy") and writes the bundle into a ConfigMap ("bundle extract");
"bundle load" prints such a ConfigMap as an olm.bundle blob and
"bundle local" stores one as a local bundle source (tar.gz).

Cluster access: --kubeconfig, else $KUBECONFIG or ~/.kube/config, else the
in-cluster service account (as inside the unpack Job).`,
	}
	cmd.AddCommand(
		newBundleExtractCmd(),
		newBundleLoadCmd(),
		newBundleUnpackCmd(),
		newBundleLocalCmd(),
		newBundleCopyCmd(),
	)
	return cmd
}

// restConfig loads cluster access from kubeconfig (a path, or "" for the
// default loading rules: $KUBECONFIG, ~/.kube/config), falling back to the
// in-cluster configuration when there is no kubeconfig.
func restConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("cluster access: %w", err)
	}
	return cfg, nil
}

// bundleClients connects to the cluster; API warnings go to stderr once
// each.
func bundleClients(kubeconfig string, stderr io.Writer) (unpack.Clients, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return unpack.Clients{}, err
	}
	cfg.WarningHandler = rest.NewWarningWriter(stderr, rest.WarningWriterOptions{Deduplicate: true})
	return unpack.NewClients(cfg)
}

// fetchConfigMap gets the ConfigMap a <namespace>/<name> argument names.
func fetchConfigMap(cmd *cobra.Command, kubeconfig, arg string) (*corev1.ConfigMap, error) {
	ns, name, err := splitRef(arg, "configmap")
	if err != nil {
		return nil, err
	}
	clients, err := bundleClients(kubeconfig, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	return clients.Kube.CoreV1().ConfigMaps(ns).Get(cmd.Context(), name, metav1.GetOptions{})
}

// splitRef parses a namespace/name argument.
func splitRef(arg, what string) (namespace, name string, err error) {
	ns, name, ok := strings.Cut(arg, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return "", "", usageError(fmt.Errorf("%s %q: want <namespace>/<name>", what, arg))
	}
	return ns, name, nil
}

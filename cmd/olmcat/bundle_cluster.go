//go:build !slim

package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/operator-catalog/olmcat/unpack"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

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
	// Launch checks its rights first (a dozen access reviews): more than
	// client-go's default of 5 requests a second.
	cfg.QPS, cfg.Burst = 50, 100
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
	return clients.ConfigMap(cmd.Context(), ns, name)
}

// configMapClient is bundle extract's client: kubeconfig, else in-cluster.
func configMapClient(kubeconfig string) (*jobtool.ConfigMaps, error) {
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	return unpack.NewConfigMapClient(cfg)
}

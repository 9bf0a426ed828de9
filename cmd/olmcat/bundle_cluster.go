//go:build !slim

package main

import (
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"github.com/operator-catalog/olmcat/unpack"
	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// fetchConfigMap gets the ConfigMap a <namespace>/<name> argument names;
// API warnings go to stderr once each.
func fetchConfigMap(cmd *cobra.Command, kubeconfig, arg string) (*corev1.ConfigMap, error) {
	ns, name, err := splitRef(arg, "configmap")
	if err != nil {
		return nil, err
	}
	clients, err := unpack.Connect(kubeconfig, cmd.ErrOrStderr())
	if err != nil {
		return nil, err
	}
	return clients.ConfigMap(cmd.Context(), ns, name)
}

// configMapClient is bundle extract's client: kubeconfig, else in-cluster.
func configMapClient(kubeconfig string) (*jobtool.ConfigMaps, error) {
	return unpack.ConnectConfigMaps(kubeconfig)
}

//go:build slim

package main

import (
	"errors"
	"os"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// bundleSubcommands of the slim build, the binary of the images olmcat
// build makes and of the unpack Job: only the two commands the Job runs,
// which reach the cluster without a Kubernetes client library.
func bundleSubcommands() []*cobra.Command {
	return []*cobra.Command{newBundleExtractCmd(), newBundleCopyCmd()}
}

// configMapClient is bundle extract's client in the slim build: the pod's
// service account only.
func configMapClient(kubeconfig string) (*jobtool.ConfigMaps, error) {
	if kubeconfig != "" || os.Getenv("KUBECONFIG") != "" {
		return nil, errors.New("this olmcat (the slim build of images) reaches the cluster only from inside a pod, as the unpack Job does: use the full olmcat binary with a kubeconfig")
	}
	return jobtool.InCluster()
}

//go:build slim

package main

import (
	"errors"
	"os"

	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// configMapClient is bundle extract's client in the slim build: the pod's
// service account only.
func configMapClient(kubeconfig string) (*jobtool.ConfigMaps, error) {
	if kubeconfig != "" || os.Getenv("KUBECONFIG") != "" {
		return nil, errors.New("this olmcat (the slim build of images) reaches the cluster only from inside a pod, as the unpack Job does: use the full olmcat binary with a kubeconfig")
	}
	return jobtool.InCluster()
}

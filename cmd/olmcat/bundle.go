package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
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
	return cmd
}

// splitRef parses a namespace/name argument.
func splitRef(arg, what string) (namespace, name string, err error) {
	ns, name, ok := strings.Cut(arg, "/")
	if !ok || ns == "" || name == "" || strings.Contains(name, "/") {
		return "", "", usageError(fmt.Errorf("%s %q: want <namespace>/<name>", what, arg))
	}
	return ns, name, nil
}

package unpack

import (
	"fmt"
	"io"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

// RESTConfig loads cluster access from kubeconfig (a path, or "" for the
// default loading rules: $KUBECONFIG, ~/.kube/config), falling back to
// the in-cluster configuration when there is no kubeconfig.
func RESTConfig(kubeconfig string) (*rest.Config, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("cluster access: %w", err)
	}
	return cfg, nil
}

// Connect returns the Clients of the cluster kubeconfig reaches
// (RESTConfig); API warnings go to warnings once each.
func Connect(kubeconfig string, warnings io.Writer) (Clients, error) {
	cfg, err := RESTConfig(kubeconfig)
	if err != nil {
		return Clients{}, err
	}
	cfg.WarningHandler = rest.NewWarningWriter(warnings, rest.WarningWriterOptions{Deduplicate: true})
	// Launch checks its rights first (a dozen access reviews): more than
	// client-go's default of 5 requests a second.
	cfg.QPS, cfg.Burst = 50, 100
	return NewClients(cfg)
}

// ConnectConfigMaps is NewConfigMapClient of the cluster kubeconfig
// reaches (RESTConfig).
func ConnectConfigMaps(kubeconfig string) (*jobtool.ConfigMaps, error) {
	cfg, err := RESTConfig(kubeconfig)
	if err != nil {
		return nil, err
	}
	return NewConfigMapClient(cfg)
}

package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

func newBundleExtractCmd() *cobra.Command {
	var (
		bundleDir, manifests, annotations string
		configMap, namespace, kubeconfig  string
		gzip, extra                       bool
		dataLimit                         int
	)
	cmd := &cobra.Command{
		Use:   "extract -c <configmap> -n <namespace>",
		Short: "Write a bundle directory into an existing ConfigMap (runs inside the unpack Job)",
		Long: `Extract writes <dir>/manifests/* and <dir>/metadata/* into the existing
ConfigMap -c in namespace -n, replacing its content, as opm alpha bundle
extract does: keys sanitized to the ConfigMap key alphabet (never two files
on one key), non-UTF-8 files in binaryData, the six bundle annotations of
metadata/annotations.yaml as the ConfigMap's annotations, the image of
$CONTAINER_IMAGE in olm.sourceImage, and with -z every file gzipped and
base64-encoded (olm.contentEncoding: gzip+base64). --extra-metadata keeps
every annotation of annotations.yaml and maps each key to its file in the
olmcat.operator-catalog.io/paths annotation (opm writes neither). A bundle
over the data limit (or annotations over 256 KiB) fails before anything is
written, naming its biggest files.`,
		Example: `  olmcat bundle extract -m ./etcd-bundle -c etcd -n operators -z --kubeconfig ~/.kube/config`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if configMap == "" || namespace == "" {
				return usageError(fmt.Errorf("both -c/--configmapname and -n/--namespace are required"))
			}
			opts := []jobtool.ExtractOption{jobtool.WithBundleDir(bundleDir), jobtool.WithGzip(gzip),
				jobtool.WithDataLimit(dataLimit), jobtool.WithSourceImage(os.Getenv("CONTAINER_IMAGE")),
				jobtool.WithExtraMetadata(extra)}
			if manifests != "" {
				opts = append(opts, jobtool.WithManifestsDir(manifests))
			}
			if annotations != "" {
				opts = append(opts, jobtool.WithAnnotationsFile(annotations))
			}
			client, err := configMapClient(kubeconfig)
			if err != nil {
				return err
			}
			n, err := jobtool.Extract(cmd.Context(), client, namespace, configMap, opts...)
			if err != nil {
				return fmt.Errorf("bundle extract: %w", err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d files into configmap %s/%s\n", n, namespace, configMap)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&bundleDir, "manifestsdir", "m", "/", "bundle directory holding manifests/ and metadata/annotations.yaml")
	f.StringVar(&manifests, "manifests", "", "manifests directory (default <manifestsdir>/manifests)")
	f.StringVar(&annotations, "annotations", "", "annotations file; its directory's other files are the metadata (default <manifestsdir>/metadata/annotations.yaml)")
	f.StringVarP(&configMap, "configmapname", "c", "", "name of the existing ConfigMap to write")
	f.StringVarP(&namespace, "namespace", "n", "", "namespace of the ConfigMap")
	f.BoolVarP(&gzip, "gzip", "z", false, "store files gzipped and base64-encoded in binaryData")
	f.BoolVar(&extra, "extra-metadata", false, "keep every bundle annotation and record each key's file (olmcat.operator-catalog.io/paths)")
	f.IntVarP(&dataLimit, "datalimit", "l", jobtool.DefaultDataLimit, "most bytes the ConfigMap's values may hold")
	f.StringVarP(&kubeconfig, "kubeconfig", "k", "", "kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	return cmd
}

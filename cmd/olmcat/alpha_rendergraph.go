//go:build !slim

package main

import (
	"bufio"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/declcfg/graph"
)

// newAlphaRenderGraphCmd is opm alpha render-graph: the mermaid text of
// the upgrade graphs of one or more indexes, as opm prints it.
func newAlphaRenderGraphCmd(img *imageFlags) *cobra.Command {
	var minEdge, pkg string
	var v0, noWarn bool
	cmd := &cobra.Command{
		Use:   "render-graph [index-image | fbc-dir | index.db]...",
		Short: "Generate mermaid-formatted view of upgrade graph of operators in an index",
		Long: `Print the upgrade graphs of the packages of one or more indexes (a
declarative config directory, a legacy sqlite index, or an image of either)
as the mermaid flowchart opm alpha render-graph prints. olmcat graph -o
mermaid prints the same text; olmcat graph -o svg draws it in-process.`,
		Example: `  olmcat alpha render-graph ./catalog -p etcd
  olmcat alpha render-graph index.db --draw-v0-semantics --minimum-edge etcdoperator.v0.9.2`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := action.RenderGraph{Env: actionEnv(cmd, img, nil), Refs: args, Package: pkg,
				Legacy: legacyHooks(cmd.ErrOrStderr(), "graph", imageFlagArgs(cmd.Flags()), !noWarn)}.Run(cmd.Context())
			if err != nil {
				return actionError(err, "render-graph")
			}
			g := res.Graph
			w := bufio.NewWriter(cmd.OutOrStdout())
			if err := graph.WriteMermaid(w, g, graph.MermaidMinimumEdge(minEdge), graph.MermaidV0Semantics(v0)); err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
			return w.Flush()
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&minEdge, "minimum-edge", "", "the channel edge to be used as the lower bound of the set of edges composing the upgrade graph; default is to include all edges")
	fl.StringVarP(&pkg, "package-name", "p", "", "a specific package name to filter output; default is to include all packages in reference")
	fl.BoolVar(&v0, "draw-v0-semantics", false, "whether to indicate OLMv0 semantics in the output; default is to simply represent the upgrade graph")
	fl.BoolVar(&noWarn, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	takesImages(cmd, imageSourceFlags)
	return cmd
}

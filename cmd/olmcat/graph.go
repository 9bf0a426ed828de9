//go:build !slim

package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg/graph"
)

func newGraphCmd(img *imageFlags) *cobra.Command {
	var output, pkg, channel string
	var noDeprecationWarning bool
	cmd := &cobra.Command{
		Use:   "graph <catalog|index.db|image>",
		Short: "Draw the upgrade graph of every channel (svg, html, mermaid, dot)",
		Long: `Graph prints the upgrade graph of every channel of a catalog (a declarative
config directory or file, or a legacy sqlite index converted as migrate does):
one node per bundle (name and version) laid out left to right by version,
replaces, skips and skipRange edges drawn distinctly, the channel head,
default channel and deprecated bundles and channels marked. The graph
problems validate reports (stranded bundles, several heads, cycles) and the
warnings it adds (edges naming absent bundles, skipRanges matching nothing)
are highlighted and explained in a legend.

-o svg draws in-process; -o html wraps the SVGs in a self-contained page;
-o mermaid prints what opm alpha render-graph prints; -o dot prints Graphviz.`,
		Example: `  olmcat graph ./catalog --package foo -o svg > foo.svg
  olmcat graph index.db -o html > graphs.html
  olmcat graph ./catalog -o mermaid`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			write, ok := map[string]func(*bufio.Writer, *graph.Graph) error{
				"svg":     func(w *bufio.Writer, g *graph.Graph) error { return graph.WriteSVG(w, g) },
				"mermaid": func(w *bufio.Writer, g *graph.Graph) error { return graph.WriteMermaid(w, g) },
				"dot":     func(w *bufio.Writer, g *graph.Graph) error { return graph.WriteDOT(w, g) },
				"html": func(w *bufio.Writer, g *graph.Graph) error {
					return report.WriteGraphPage(w, "Upgrade graphs of "+args[0], g)
				},
			}[output]
			if !ok {
				return usageError(fmt.Errorf("unknown output format %q (want svg, html, mermaid or dot)", output))
			}
			res, err := action.Graph{Env: actionEnv(cmd, img, nil), Ref: args[0], Package: pkg, Channel: channel,
				Legacy: legacyHooks(cmd.ErrOrStderr(), "graph", imageFlagArgs(cmd.Flags()), !noDeprecationWarning)}.Run(cmd.Context())
			if err != nil {
				return actionError(err, "graph")
			}
			g := res.Graph
			w := bufio.NewWriterSize(cmd.OutOrStdout(), 256*1024)
			if err := write(w, g); err != nil {
				return err
			}
			return w.Flush()
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&output, "output", "o", "svg", "output format: svg, html, mermaid or dot")
	fl.StringVar(&pkg, "package", "", "draw only this package")
	fl.StringVar(&channel, "channel", "", "draw only channels of this name")
	fl.BoolVar(&noDeprecationWarning, "no-deprecation-warning", false, "do not print the sqlite deprecation warning")
	takesImages(cmd, imageSourceFlags)
	return cmd
}

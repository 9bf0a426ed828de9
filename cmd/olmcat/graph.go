//go:build !slim

package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/migrate"
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
			in, err := img.resolve(cmd.Context(), args[0], input.Either, "graph", cmd.ErrOrStderr())
			if err != nil {
				return inputError(err, func(err error) error {
					return &exitError{code: exitInvalid, err: fmt.Errorf("graph %s: %w", args[0], err)}
				})
			}
			defer in.Close()
			rin := renderInput{Input: in, name: args[0]}
			if err := refuseBundleInput(rin, "graph"); err != nil {
				return err
			}
			g, err := buildGraph(cmd, rin, noDeprecationWarning, graph.WithPackage(pkg), graph.WithChannel(channel))
			if err != nil {
				return &exitError{code: exitInvalid, err: err}
			}
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

// buildGraph builds the graph of a graph argument (see addToGraph).
func buildGraph(cmd *cobra.Command, in renderInput, noDeprecationWarning bool, opts ...graph.Option) (*graph.Graph, error) {
	b := graph.NewBuilder(opts...)
	if err := addToGraph(cmd, b, in, noDeprecationWarning); err != nil {
		return nil, err
	}
	g, err := b.Graph()
	if err != nil {
		return nil, fmt.Errorf("graph %s: %w", in.name, err)
	}
	return g, nil
}

// addToGraph adds one input to b. A directory or a sqlite index is
// walked package by package (only the graph is kept, so memory follows
// the graph, not the catalog's bytes); with a package filter only that
// package is decoded. Other inputs are loaded as render loads them.
func addToGraph(cmd *cobra.Command, b *graph.Builder, in renderInput, noDeprecationWarning bool) error {
	pkg := b.Package()
	switch {
	case in.Kind == input.KindDeclcfg && pkg != "":
		// One package: only its files are decoded, once.
		cfg, err := declcfg.LoadDir(cmd.Context(), in.Path, declcfg.WithPackages(pkg))
		if err != nil {
			return err
		}
		b.Add(cfg)
	case in.Kind == input.KindDeclcfg:
		add := func(_ string, cfg *declcfg.DeclarativeConfig) error { b.Add(cfg); return nil }
		if err := declcfg.EachPackage(cmd.Context(), in.Path, add); err != nil {
			return err
		}
	case in.Kind == input.KindSQLite:
		var mopts []migrate.Option
		if pkg != "" {
			mopts = append(mopts, migrate.WithPackages(pkg))
		}
		if !noDeprecationWarning {
			warnDeprecated(cmd.Context(), cmd.ErrOrStderr(), in.name, in.Path, imageFlagArgs(cmd.Flags()))
		}
		rep, err := migrate.Each(cmd.Context(), in.Path, func(cfg *declcfg.DeclarativeConfig) error { b.Add(cfg); return nil }, mopts...)
		report.NameRemedies(rep, err)
		report.WriteConversionSummary(cmd.ErrOrStderr(), "graph", in.name, rep)
		if err != nil {
			return fmt.Errorf("graph %s: %w", in.name, err)
		}
	default:
		cfg, err := loadRenderInput(cmd.Context(), in, cmd.ErrOrStderr(), noDeprecationWarning)
		if err != nil {
			return err
		}
		b.Add(cfg)
	}
	return nil
}

// Package graph turns the channels of a declarative config into upgrade
// graphs and draws them: Mermaid text as opm alpha render-graph prints it,
// Graphviz DOT, and SVG laid out here, left to right by version, in pure Go.
//
// A graph holds one node per bundle of a channel (name and version; the
// head, deprecated bundles and bundles an edge names but the channel lacks
// marked) and one edge per replaces, skips and skipRange match. Its
// problems are the findings of model.AnalyzeChannel, the same function
// validation applies, so a picture shows exactly what validate reports:
// stranded bundles, several heads, cycles, edges naming absent bundles and
// skipRanges matching nothing.
//
// Every writer is deterministic: the same catalog gives the same bytes.
package graph

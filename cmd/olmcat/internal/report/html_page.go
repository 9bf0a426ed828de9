package report

import (
	"bytes"
	"fmt"
	"html"
	"io"

	"github.com/operator-catalog/olmcat/declcfg/graph"
)

// pageCSS styles every page.
const pageCSS = `body{font-family:sans-serif;margin:0;color:#1a202c;background:#f7fafc}
header{position:sticky;top:0;background:#2d3748;color:#fff;padding:10px 16px;display:flex;gap:16px;align-items:center;z-index:1}
header h1{font-size:18px;margin:0;flex:1}
header input{font-size:14px;padding:4px 8px;width:280px}
main{padding:12px 16px}
section{margin-bottom:20px}
h2{font-size:16px;border-bottom:1px solid #cbd5e0;padding-bottom:4px}
table{border-collapse:collapse;background:#fff;font-size:13px}
th,td{border:1px solid #cbd5e0;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#edf2f7}
td.n{text-align:right}
details.package{background:#fff;border:1px solid #cbd5e0;border-radius:6px;margin:6px 0;padding:4px 10px}
details.package>summary{cursor:pointer;font-weight:bold}
.badge{display:inline-block;font-size:11px;font-weight:normal;border-radius:8px;padding:0 6px;margin-left:6px;background:#e2e8f0}
.badge.drop,.badge.loss{background:#fed7d7;color:#9b2c2c}
.badge.change{background:#feebc8;color:#7b341e}
.badge.problem{background:#fed7d7;color:#9b2c2c}
.graphs{display:flex;flex-wrap:wrap;gap:12px}
.graph{overflow:auto;max-width:100%;border:1px solid #e2e8f0;margin:4px 0}
.graph h3{font-size:13px;margin:4px}
.hidden{display:none}
.defs{position:absolute;width:0;height:0;overflow:hidden}
`

// pageJS filters packages (and rows naming a package) by the search box.
const pageJS = `(function(){var q=document.getElementById('search');if(!q)return;
q.addEventListener('input',function(){var v=q.value.toLowerCase();
document.querySelectorAll('[data-package]').forEach(function(e){if(e.closest('svg'))return;
e.classList.toggle('hidden',v!==''&&e.getAttribute('data-package').toLowerCase().indexOf(v)<0);});});})();`

// csp forbids every fetch: the page can only use what it holds.
const csp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:`

// page writes the frame of a page around body.
func page(w io.Writer, title string, body func(w io.Writer) error) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	fmt.Fprintf(&b, "<meta http-equiv=\"Content-Security-Policy\" content=\"%s\">\n", csp)
	fmt.Fprintf(&b, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>%s</title>\n", esc(title))
	fmt.Fprintf(&b, "<style>\n%s%s\n</style>\n</head>\n<body>\n", pageCSS, graph.SVGStyle)
	fmt.Fprintf(&b, "<svg class=\"defs\" aria-hidden=\"true\">%s</svg>\n", graph.SVGDefs)
	fmt.Fprintf(&b, "<header><h1>%s</h1><input id=\"search\" type=\"search\" placeholder=\"filter packages\" aria-label=\"filter packages\"></header>\n<main>\n", esc(title))
	if _, err := w.Write(b.Bytes()); err != nil {
		return err
	}
	if err := body(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "</main>\n<script>%s</script>\n</body>\n</html>\n", pageJS)
	return err
}

// svgOf draws g for embedding in a page.
func svgOf(g *graph.Graph) (string, error) {
	var b bytes.Buffer
	if err := graph.WriteSVG(&b, g, graph.Embedded()); err != nil {
		return "", err
	}
	return b.String(), nil
}

func esc(s string) string { return html.EscapeString(s) }

// WriteGraphPage writes a page with the upgrade graphs of g, one collapsed
// section per package.
func WriteGraphPage(w io.Writer, title string, g *graph.Graph) error {
	return page(w, title, func(w io.Writer) error {
		fmt.Fprintf(w, "<section id=\"packages\"><h2>%d packages</h2>\n", len(g.Packages))
		open := ""
		if len(g.Packages) == 1 {
			open = " open"
		}
		for _, p := range g.Packages {
			problems := findings(&packageGraphs{after: p})
			svg, err := svgOf(&graph.Graph{Packages: []*graph.Package{p}})
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "<details class=\"package\" data-package=\"%s\"%s><summary>%s<span class=\"badge\">%d channels</span>", esc(p.Name), open, esc(p.Name), len(p.Channels))
			if problems > 0 {
				fmt.Fprintf(w, "<span class=\"badge problem\">%d graph findings</span>", problems)
			}
			fmt.Fprintf(w, "</summary>\n<div class=\"graph\">%s</div></details>\n", svg)
		}
		_, err := fmt.Fprint(w, "</section>\n")
		return err
	})
}

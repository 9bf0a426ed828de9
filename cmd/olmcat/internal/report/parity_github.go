package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// Catalog is a declarative config directory whose blobs annotations
// point at: Dir as the user named it, Locator over it.
type Catalog struct {
	Dir     string
	Locator *declcfg.Locator
}

// ParityGitHub returns a parity.PackageReport that writes the check to w
// as GitHub Actions workflow commands while it runs: an error per loss
// (with strict, per difference) and per upgrade graph difference, each
// on the file and line of the blob it is about in cat (when cat is not
// nil and holds the blob), written package by package; then one line
// with the verdict of the text output, an error when the check failed
// and a notice when it passed. A package's failing differences are held
// until the package is done (its blobs are located once).
func ParityGitHub(w io.Writer, strict bool, cat *Catalog) ParityCI {
	return &parityGitHub{w: w, strict: strict, cat: cat}
}

type parityGitHub struct {
	w      io.Writer
	strict bool
	cat    *Catalog
	held   []parity.Diff
	err    error
}

// Begin implements parity.Report.
func (g *parityGitHub) Begin(parity.SideInfo, parity.SideInfo) error { return nil }

// Diff implements parity.Report.
func (g *parityGitHub) Diff(d parity.Diff) error {
	if d.Class == parity.Loss || g.strict {
		g.held = append(g.held, d)
	}
	return nil
}

// Package implements parity.PackageReport.
func (g *parityGitHub) Package(pr *parity.PackageResult) error {
	if len(g.held) == 0 && len(pr.Graph) == 0 {
		return nil
	}
	var places []declcfg.Place
	if g.cat != nil {
		var err error
		if places, err = g.cat.Locator.Package(pr.Name); err != nil {
			return err
		}
	}
	for _, d := range g.held {
		at := g.where(places, pr.Name, d)
		g.write(ghCommand("error", at, "parity "+string(d.Class)+": "+d.Rule, diffLine(d)))
	}
	for _, gd := range pr.Graph {
		at := g.place(places, declcfg.SchemaChannel, gd.Channel)
		g.write(ghCommand("error", at, "parity loss: upgrade graph", "LOSS "+gd.String()))
	}
	g.held = g.held[:0]
	return g.err
}

// End implements parity.Report.
func (g *parityGitHub) End(res *parity.Result) error {
	for _, d := range g.held {
		g.write(ghCommand("error", ghWhere{}, "parity "+string(d.Class)+": "+d.Rule, diffLine(d)))
	}
	level := "notice"
	if !res.OK(g.strict) {
		level = "error"
	}
	g.write(ghCommand(level, ghWhere{}, "parity", parityVerdict(res, g.strict)))
	return g.err
}

func (g *parityGitHub) write(s string) {
	if g.err == nil {
		_, g.err = io.WriteString(g.w, s)
	}
}

// where finds the blob a difference is about among its package's
// places: the blob a blob check names, the bundle the request or path
// names, else the channel, else the package. ListPackages is about no one package's blob.
func (g *parityGitHub) where(places []declcfg.Place, pkg string, d parity.Diff) ghWhere {
	if d.RPC == parity.RPCListPackages {
		return ghWhere{}
	}
	req := map[string]string{}
	for _, f := range strings.Fields(d.Request) {
		if k, v, ok := strings.Cut(f, "="); ok {
			req[k] = v
		}
	}
	if d.RPC == parity.RPCListBundles {
		// The path names the bundle: [package/channel/bundle]...
		if p := strings.SplitN(strings.TrimPrefix(d.Path, "["), "]", 2)[0]; strings.Count(p, "/") == 2 {
			req["csvName"] = p[strings.LastIndexByte(p, '/')+1:]
		}
	}
	if schema := req["schema"]; schema != "" { // a blob check names the blob
		if at := g.place(places, schema, req["name"]); at.file != "" {
			return at
		}
	}
	if at := g.place(places, declcfg.SchemaBundle, req["csvName"]); at.file != "" {
		return at
	}
	if at := g.place(places, declcfg.SchemaChannel, req["channelName"]); at.file != "" {
		return at
	}
	return g.place(places, declcfg.SchemaPackage, pkg)
}

// place is where the blob of schema and name is, if among places.
func (g *parityGitHub) place(places []declcfg.Place, schema, name string) ghWhere {
	if name == "" {
		return ghWhere{}
	}
	for _, p := range places {
		if p.Schema == schema && p.Name == name {
			return ghWhere{file: ghPath(g.cat.Dir, p.File), line: p.Line}
		}
	}
	return ghWhere{}
}

// parityVerdict is the text output's last line.
func parityVerdict(r *parity.Result, strict bool) string {
	switch {
	case r.LossCalls > 0 || len(r.Graph) > 0:
		return fmt.Sprintf("LOSS: %d of %d %s lost data; %d upgrade graph difference(s)", r.LossCalls, r.Calls, r.Unit(), len(r.Graph))
	case strict && r.BenignCalls > 0:
		return fmt.Sprintf("DIFFERENT (strict): %d of %d %s differ (all benign)", r.BenignCalls, r.Calls, r.Unit())
	case r.BenignCalls > 0:
		return fmt.Sprintf("PARITY: no loss in %d %s (%d with benign differences)", r.Calls, r.Unit(), r.BenignCalls)
	}
	return fmt.Sprintf("PARITY: %d %s, all identical", r.Calls, r.Unit())
}

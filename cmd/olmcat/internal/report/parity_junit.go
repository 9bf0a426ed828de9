package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/registry/parity"
)

// ciDiffsPerCase bounds the differences a JUnit failure lists (its
// message counts them all): enough to see what is wrong, bounded
// whatever the catalog's size.
const ciDiffsPerCase = 5

// caseDiffs are the differences of one test case: counted, the first few
// of each class kept as lines.
type caseDiffs struct {
	losses, benign int
	lossLines      []string
	benignLines    []string
}

func (c *caseDiffs) add(class parity.Class, line string) {
	switch class {
	case parity.Loss:
		c.losses++
		if len(c.lossLines) < ciDiffsPerCase {
			c.lossLines = append(c.lossLines, line)
		}
	default:
		c.benign++
		if len(c.benignLines) < ciDiffsPerCase {
			c.benignLines = append(c.benignLines, line)
		}
	}
}

// diffLine renders a difference on one line.
func diffLine(d parity.Diff) string {
	return fmt.Sprintf("%s %s {%s} %s: left %s, right %s [%s]", strings.ToUpper(string(d.Class)), d.RPC, d.Request, d.Path, d.Left, d.Right, d.Rule)
}

// catalogSuite names the suite of the calls about no one package.
const catalogSuite = "(catalog-wide calls)"

// graphCase names the test case of a package's upgrade graphs.
const graphCase = "upgrade graph"

// ParityJUnit returns a parity.PackageReport that writes the check to w
// as JUnit XML while it runs: one <testsuite> per package, written when
// the package is done, and one for the catalog-wide calls at the end;
// in each, one <testcase> per RPC called (assertions: the calls), one for
// the package's share of ListBundles when it differs, and one for the
// upgrade graphs of its channels (assertions: the channels). A case fails
// when a call lost data (with strict, when any differs); its failure
// lists the first differences. Memory holds one package's counts and
// first differences.
func ParityJUnit(w io.Writer, strict bool) ParityCI {
	return &parityJUnit{j: junitWriter{w: w}, strict: strict, cur: map[string]*caseDiffs{}, catalog: map[string]*caseDiffs{}}
}

type parityJUnit struct {
	j       junitWriter
	strict  bool
	cur     map[string]*caseDiffs // the current package's differences per RPC
	catalog map[string]*caseDiffs // ListPackages' differences, reported with the catalog-wide calls
	inPkgs  map[string]parity.RPCStats
}

// Begin implements parity.Report.
func (p *parityJUnit) Begin(left, right parity.SideInfo) error {
	p.inPkgs = map[string]parity.RPCStats{}
	p.j.begin(fmt.Sprintf("olmcat parity %s vs %s", left.Ref, right.Ref))
	return p.j.err
}

// Diff implements parity.Report.
func (p *parityJUnit) Diff(d parity.Diff) error {
	m := p.cur
	if d.RPC == parity.RPCListPackages {
		m = p.catalog
	}
	c := m[d.RPC]
	if c == nil {
		c = &caseDiffs{}
		m[d.RPC] = c
	}
	c.add(d.Class, diffLine(d))
	return nil
}

// Package implements parity.PackageReport.
func (p *parityJUnit) Package(pr *parity.PackageResult) error {
	s := &junitSuite{Name: pr.Name}
	for _, st := range pr.Stats {
		s.Cases = append(s.Cases, p.callCase(pr.Name, st, p.cur[st.RPC]))
		sum := p.inPkgs[st.RPC]
		sum.Calls, sum.Identical, sum.Benign, sum.Losses = sum.Calls+st.Calls, sum.Identical+st.Identical, sum.Benign+st.Benign, sum.Losses+st.Losses
		p.inPkgs[st.RPC] = sum
	}
	if c := p.cur[parity.RPCListBundles]; c != nil {
		// The package's share of the one ListBundles call: its
		// differences, not calls.
		s.Cases = append(s.Cases, p.diffCase(pr.Name, parity.RPCListBundles, nil, c,
			fmt.Sprintf("%d difference(s) in the package's bundles", c.losses+c.benign)))
	}
	if pr.GraphChannels > 0 || len(pr.Graph) > 0 {
		s.Cases = append(s.Cases, graphTestCase(pr))
	}
	p.j.suite(s)
	clear(p.cur)
	return p.j.err
}

// End implements parity.Report.
func (p *parityJUnit) End(res *parity.Result) error {
	s := &junitSuite{Name: catalogSuite}
	for rpc, c := range p.catalog {
		if p.cur[rpc] == nil {
			p.cur[rpc] = c
		}
	}
	for _, st := range res.Stats {
		in := p.inPkgs[st.RPC]
		st.Calls, st.Identical, st.Benign, st.Losses = st.Calls-in.Calls, st.Identical-in.Identical, st.Benign-in.Benign, st.Losses-in.Losses
		if st.Calls > 0 {
			s.Cases = append(s.Cases, p.callCase(catalogSuite, st, p.cur[st.RPC]))
		}
	}
	p.j.suite(s)
	return p.j.end()
}

// callCase is the test case of one RPC's calls.
func (p *parityJUnit) callCase(suite string, st parity.RPCStats, c *caseDiffs) junitCase {
	unit := "call(s)"
	if slices.Contains(parity.BlobKinds, st.RPC) {
		unit = "blob(s)" // a blob check counts blobs per kind
	}
	what := fmt.Sprintf("%d of %d %s lost data", st.Losses, st.Calls, unit)
	if st.Losses == 0 {
		what = fmt.Sprintf("%d of %d %s differ (benign)", st.Benign, st.Calls, unit)
	}
	if c == nil {
		// Calls counted as differing without a difference of their
		// own: ListBundles, whose differences are the packages'.
		c = &caseDiffs{losses: st.Losses, benign: st.Benign}
	}
	return p.diffCase(suite, st.RPC, count(st.Calls), c, what)
}

// diffCase is a test case whose differences c fail it (losses, or any
// with strict); what says how many, in the failure's message.
func (p *parityJUnit) diffCase(suite, name string, assertions *int, c *caseDiffs, what string) junitCase {
	tc := junitCase{Name: name, Classname: suite, Assertions: assertions}
	if c == nil {
		return tc
	}
	switch {
	case c.losses > 0:
		tc.Failure = &junitFailure{Message: what, Type: string(parity.Loss), Text: xmlSafe(lines(c.lossLines, c.benignLines, p.strict))}
	case p.strict && c.benign > 0:
		tc.Failure = &junitFailure{Message: what, Type: string(parity.Benign), Text: xmlSafe(lines(nil, c.benignLines, true))}
	case c.benign > 0:
		tc.SystemOut = text(what + "\n" + lines(nil, c.benignLines, true))
	}
	return tc
}

// lines joins the kept difference lines: the losses, then with benign
// the benign ones.
func lines(losses, benign []string, withBenign bool) string {
	all := losses
	if withBenign {
		all = append(append([]string(nil), losses...), benign...)
	}
	if len(all) == 0 {
		return ""
	}
	return strings.Join(all, "\n") + "\n"
}

// graphTestCase is the test case of a package's upgrade graphs: every
// graph difference is a loss.
func graphTestCase(pr *parity.PackageResult) junitCase {
	tc := junitCase{Name: graphCase, Classname: pr.Name, Assertions: count(pr.GraphChannels)}
	if len(pr.Graph) == 0 {
		return tc
	}
	var ls []string
	for i, g := range pr.Graph {
		if i == ciDiffsPerCase {
			break
		}
		ls = append(ls, "LOSS "+g.String())
	}
	tc.Failure = &junitFailure{Message: fmt.Sprintf("%d upgrade graph difference(s) in %d channel(s)", len(pr.Graph), pr.GraphChannels),
		Type: string(parity.Loss), Text: xmlSafe(lines(ls, nil, false))}
	return tc
}

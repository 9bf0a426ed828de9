package parity

// Report receives a check's outcome while the check runs: Begin once both
// sides are open, Diff for every difference as it is found (package by
// package in name order, then the catalog-wide calls), End with the
// finished Result. An error from a Report ends the check with it.
type Report interface {
	Begin(left, right SideInfo) error
	Diff(d Diff) error
	End(res *Result) error
}

// PackageResult is what the calls about one package found: the calls per
// RPC and outcome (the RPCs with no call left out), and the package's
// upgrade graph differences and channels compared. Its differences were
// passed to Report.Diff before it.
type PackageResult struct {
	Name          string
	Stats         []RPCStats
	Graph         []GraphDiff
	GraphChannels int
}

// PackageReport is a Report that also hears when each package is done,
// in name order, after that package's differences: what it needs to write
// a package's section while the check runs. The differences passed to
// Diff before the first package (ListPackages, and ListBundles when a
// side refused it) or after the last one (the catalog-wide calls) belong
// to no package; End's Result covers everything.
type PackageReport interface {
	Report
	Package(p *PackageResult) error
}

// RuleSamples is a Report that keeps the first PerRule differences of
// each rule, in the order found: enough to show every kind of
// difference, bounded whatever the catalog's size.
type RuleSamples struct {
	PerRule int
	// Diffs holds the samples once the check ended.
	Diffs []Diff
	seen  map[string]int
}

// Begin implements Report.
func (r *RuleSamples) Begin(SideInfo, SideInfo) error {
	r.seen = map[string]int{}
	return nil
}

// Diff implements Report.
func (r *RuleSamples) Diff(d Diff) error {
	if r.seen[d.Rule] < r.PerRule {
		r.seen[d.Rule]++
		r.Diffs = append(r.Diffs, d)
	}
	return nil
}

// End implements Report.
func (r *RuleSamples) End(*Result) error { return nil }

// packageDone passes a package's outcome to the PackageReports.
func (t *tally) packageDone(name string, u *unitResult) {
	var pr *PackageResult
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, rep := range t.reports {
		p, ok := rep.(PackageReport)
		if !ok || t.err != nil {
			continue
		}
		if pr == nil {
			pr = &PackageResult{Name: name, Stats: unitStats(u), Graph: u.graph, GraphChannels: u.channels}
		}
		t.err = p.Package(pr)
	}
}

// unitStats counts a package's calls per RPC (or blob kind), in report
// order.
func unitStats(u *unitResult) []RPCStats {
	all := make([]RPCStats, len(statNames))
	for i, c := range u.calls {
		st := &all[rpcOrder[c.rpc]]
		st.RPC = c.rpc
		st.Calls++
		switch worst(u.diffs[i]) {
		case "":
			st.Identical++
		case Benign:
			st.Benign++
		case Loss:
			st.Losses++
		}
	}
	out := all[:0]
	for _, st := range all {
		if st.Calls > 0 {
			out = append(out, st)
		}
	}
	return out
}

package parity

import (
	"fmt"
	"strings"

	"github.com/operator-catalog/olmcat/input"
)

// RPC names, in the order results are reported.
const (
	RPCListPackages                       = "ListPackages"
	RPCGetPackage                         = "GetPackage"
	RPCGetBundle                          = "GetBundle"
	RPCGetBundleForChannel                = "GetBundleForChannel"
	RPCGetChannelEntriesThatReplace       = "GetChannelEntriesThatReplace"
	RPCGetBundleThatReplaces              = "GetBundleThatReplaces"
	RPCGetChannelEntriesThatProvide       = "GetChannelEntriesThatProvide"
	RPCGetLatestChannelEntriesThatProvide = "GetLatestChannelEntriesThatProvide"
	RPCGetDefaultBundleThatProvides       = "GetDefaultBundleThatProvides"
	RPCListBundles                        = "ListBundles"
)

// RPCs lists every api.Registry RPC the checker calls.
var RPCs = []string{
	RPCListPackages, RPCGetPackage, RPCGetBundle, RPCGetBundleForChannel,
	RPCGetChannelEntriesThatReplace, RPCGetBundleThatReplaces,
	RPCGetChannelEntriesThatProvide, RPCGetLatestChannelEntriesThatProvide,
	RPCGetDefaultBundleThatProvides, RPCListBundles,
}

// Diff is one difference between the two sides' answers to one call.
type Diff struct {
	RPC string `json:"rpc"`
	// Request is the call's request in field=value form.
	Request string `json:"request"`
	// Path locates the difference inside the answer, e.g.
	// ".properties[olm.gvk]" or "[foo/beta/foo.v0.2.0]".
	Path  string `json:"path"`
	Left  string `json:"left"`
	Right string `json:"right"`
	Class Class  `json:"class"`
	Rule  string `json:"rule"`
	// Explanation says why the rule applies (from the reference).
	Explanation string `json:"explanation"`
}

// RPCStats counts the calls of one RPC by outcome. A call counts as a
// loss if any of its differences is a loss, as benign if all of them are
// benign, and as identical if the answers did not differ.
type RPCStats struct {
	RPC       string `json:"rpc"`
	Calls     int    `json:"calls"`
	Identical int    `json:"identical"`
	Benign    int    `json:"benign"`
	Losses    int    `json:"losses"`
}

// SideInfo describes one side of a check.
type SideInfo struct {
	Ref  string     `json:"ref"`
	Kind input.Kind `json:"kind"`
	// Backend is the server behind the side: sqlite or declcfg.
	Backend input.Kind `json:"backend"`
}

// Result is the outcome of Check.
type Result struct {
	// Mode is how the sides were compared: ModeRPC (Check) or ModeBlobs
	// (CheckBlobs), whose Stats count blobs per BlobKinds, not calls.
	Mode  string     `json:"mode"`
	Left  SideInfo   `json:"left"`
	Right SideInfo   `json:"right"`
	Stats []RPCStats `json:"stats"`
	// Calls, BenignCalls and LossCalls total Stats.
	Calls       int `json:"calls"`
	BenignCalls int `json:"benignCalls"`
	LossCalls   int `json:"lossCalls"`
	// Diffs holds the differences, losses first, then by RPC, request
	// and path: every one, or the first n with WithMaxDiffs(n).
	Diffs []Diff `json:"diffs"`
	// DiffsOmitted counts the differences not in Diffs.
	DiffsOmitted int `json:"diffsOmitted"`
	// DiffCounts counts every difference per class, kept or not.
	DiffCounts map[Class]int `json:"diffCounts"`
	// RulesSeen counts every difference per rule name.
	RulesSeen map[string]int `json:"rulesSeen"`
	// Graph holds the differences of the upgrade graphs, compared
	// directly per channel (entries, replaces, skips, skipRange) from
	// both sides' ListBundles; every one is a loss, whatever the per-RPC
	// rules say. GraphChannels counts the channels compared.
	Graph         []GraphDiff `json:"graph"`
	GraphChannels int         `json:"graphChannels"`
}

// Unit is what Stats and Calls count: "calls" (ModeRPC) or "blobs"
// (ModeBlobs).
func (r *Result) Unit() string {
	if r.Mode == ModeBlobs {
		return "blobs"
	}
	return "calls"
}

// Losses returns the loss differences kept in Diffs.
func (r *Result) Losses() []Diff { return r.filter(Loss) }

// BenignDiffs returns the benign differences kept in Diffs.
func (r *Result) BenignDiffs() []Diff { return r.filter(Benign) }

func (r *Result) filter(c Class) []Diff {
	var out []Diff
	for _, d := range r.Diffs {
		if d.Class == c {
			out = append(out, d)
		}
	}
	return out
}

// OK reports whether the check passed: no loss, and with strict no
// difference at all.
func (r *Result) OK(strict bool) bool {
	if r.LossCalls > 0 || len(r.Graph) > 0 {
		return false
	}
	return !strict || r.BenignCalls == 0
}

// Err returns nil when the check passed (see OK), and otherwise an error
// that counts the failing differences and shows the first few.
func (r *Result) Err(strict bool) error {
	if r.OK(strict) {
		return nil
	}
	failing, what, calls, n := r.Losses(), "loss(es)", r.LossCalls, r.DiffCounts[Loss]
	if strict {
		failing, what, calls, n = r.Diffs, "difference(s)", r.LossCalls+r.BenignCalls, r.DiffCounts[Loss]+r.DiffCounts[Benign]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "parity %s vs %s: %d %s in %d of %d %s", r.Left.Ref, r.Right.Ref, n, what, calls, r.Calls, r.Unit())
	if len(r.Graph) > 0 {
		fmt.Fprintf(&b, ", %d upgrade graph difference(s) (first: %s)", len(r.Graph), r.Graph[0])
	}
	for i, d := range failing {
		if i == 3 {
			fmt.Fprintf(&b, "; ...")
			break
		}
		fmt.Fprintf(&b, "; %s {%s} %s: left %s, right %s [%s]", d.RPC, d.Request, d.Path, d.Left, d.Right, d.Rule)
	}
	return fmt.Errorf("%s", b.String())
}

package v1check

import "fmt"

// Across adds what operator-controller finds of one package offered by
// several catalogs of equal priority: reports are the package's, one per
// catalog, in the order the catalogs were given. A catalog whose
// candidate is deprecated loses to one whose candidate is not; when two
// or more candidates remain, resolution fails for all of them.
func Across(reports []*Report) {
	var cands []*Report
	nonDeprecated := false
	for _, r := range reports {
		if r.V1Pick != nil {
			cands = append(cands, r)
			nonDeprecated = nonDeprecated || !r.pickDeprecated
		}
	}
	var names []string
	for _, r := range cands {
		if !nonDeprecated || !r.pickDeprecated {
			names = append(names, r.Catalog)
		}
	}
	if len(names) < 2 {
		return
	}
	msg := fmt.Sprintf("found bundles for package %q in multiple catalogs with the same priority %v", reports[0].Package, names)
	for _, r := range reports {
		r.Add(RuleDuplicatePackage, "", msg, "")
	}
}

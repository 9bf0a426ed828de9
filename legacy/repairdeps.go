package legacy

import (
	"fmt"
	"strings"
)

// repairDependencies undoes migration 9's corruption for one bundle's
// dependencies rows: every row holding the copied value is suspect (except
// the very first row of the table, the value's origin) and is dropped;
// rows written after migration 9 (other values) are kept; the olm.gvk
// dependencies the bundle's CSV requires are re-derived from api_requirer,
// else the CSV. What cannot be recovered (dependencies.yaml entries such as
// olm.package or olm.constraint) is said in the repair line.
func (db *DB) repairDependencies(name string, rows []Dependency, required []API, getCSV func() (*csvDoc, error), rep *pkgReport) ([]Dependency, error) {
	var kept []Dependency
	suspect := 0
	firstKept := false
	for _, r := range rows {
		if r.Value != db.depsValue {
			kept = append(kept, r)
			continue
		}
		if name == db.depsFirstBundle && r == db.depsFirst && !firstKept {
			firstKept = true
			kept = append(kept, r)
			continue
		}
		suspect++
	}
	if suspect == 0 {
		return rows, nil
	}
	truth, src := required, "api_requirer"
	if len(truth) == 0 {
		c, err := getCSV()
		if err != nil {
			return nil, err
		}
		truth, src = nil, "the CSV"
		if c != nil {
			truth = c.requiredAPIs()
		}
	}
	have := map[Dependency]bool{}
	for _, r := range kept {
		have[r] = true
	}
	var derived []string
	for _, a := range truth {
		d := Dependency{Type: "olm.gvk", Value: gvkValue(a)}
		if !have[d] {
			have[d] = true
			kept = append(kept, d)
			derived = append(derived, d.Value)
		}
	}
	detail := fmt.Sprintf("migration 9 overwrote %d dependencies row(s) with the value %s; dropped them", suspect, db.depsValue)
	if len(derived) > 0 {
		detail += fmt.Sprintf(" and re-derived %d olm.gvk dependency(ies) from %s: %s", len(derived), src, strings.Join(derived, ", "))
	}
	if lost := suspect - len(derived); lost > 0 {
		detail += fmt.Sprintf("; %d dependency(ies) (from dependencies.yaml: olm.package, olm.label, olm.constraint or extra olm.gvk) cannot be recovered", lost)
	}
	rep.add(RepairCorruptDependencies, "dependencies", name, detail)
	return kept, nil
}

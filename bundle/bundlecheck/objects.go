package bundlecheck

import (
	"encoding/json"
	"fmt"
	"slices"
)

// defaultSCCs are the SecurityContextConstraints a cluster ships with.
var defaultSCCs = []string{"privileged", "restricted", "anyuid", "hostaccess", "hostmount-anyuid", "hostnetwork", "node-exporter", "nonroot"}

type policyRule struct {
	APIGroups     []string `json:"apiGroups"`
	Resources     []string `json:"resources"`
	Verbs         []string `json:"verbs"`
	ResourceNames []string `json:"resourceNames"`
}

// checkBundleObjects is the bundle-objects optional validator: objects
// that could disturb a cluster. opm hands operator-framework's validator
// the list of objects as one argument, which it does not recognise, so
// opm never reports anything here; the checks are made. A string
// maxUnavailable other than "0%" passes (upstream reads every string as
// 0).
func checkBundleObjects(c collector, objs []object) {
	for _, obj := range objs {
		value := obj.kind + " " + obj.name
		switch obj.kind {
		case "PodDisruptionBudget":
			var pdb struct {
				Spec struct {
					MaxUnavailable any `json:"maxUnavailable"`
					MinAvailable   any `json:"minAvailable"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(obj.json, &pdb); err != nil {
				c.add(obj.file, apiError("", err, "error unmarshaling poddisruptionbudget"))
				continue
			}
			if mu := pdb.Spec.MaxUnavailable; mu == float64(0) || mu == "0%" {
				c.add(obj.file, apiError("", value, "maxUnavailable field cannot be set to 0 or 0%"))
			}
			if pdb.Spec.MinAvailable == "100%" {
				c.add(obj.file, apiError("", value, "minAvailable field cannot be set to 100%"))
			}
		case "PriorityClass":
			var pc struct {
				GlobalDefault bool `json:"globalDefault"`
			}
			if err := json.Unmarshal(obj.json, &pc); err != nil {
				c.add(obj.file, apiError("", err, "error unmarshaling priorityclass"))
			} else if pc.GlobalDefault {
				c.add(obj.file, apiError("", value, "globalDefault field cannot be set to true"))
			}
		case "Role", "ClusterRole":
			var role struct {
				Rules []policyRule `json:"rules"`
			}
			if err := json.Unmarshal(obj.json, &role); err != nil {
				c.add(obj.file, apiError("", err, fmt.Sprintf("error unmarshaling %s", obj.kind)))
				continue
			}
			for _, r := range role.Rules {
				if modifiesDefaultSCC(r) {
					c.add(obj.file, apiError("", value, "RBAC includes permission to modify default securitycontextconstraints, which could impact cluster stability"))
				}
			}
		}
	}
}

func modifiesDefaultSCC(r policyRule) bool {
	return slices.Contains(r.APIGroups, "security.openshift.io") &&
		slices.Contains(r.Resources, "securitycontextconstraints") &&
		slices.ContainsFunc(r.Verbs, func(v string) bool { return v == "*" || v == "delete" || v == "update" || v == "patch" }) &&
		slices.ContainsFunc(r.ResourceNames, func(n string) bool { return slices.Contains(defaultSCCs, n) })
}

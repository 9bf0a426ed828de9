package manifest

import (
	"encoding/json"
)

// RequiredAPIs are the CRDs and then the API services the CSV requires,
// in CSV order, duplicates dropped.
func (c *CSV) RequiredAPIs() ([]API, error) {
	crds, err := c.CRDs()
	if err != nil {
		return nil, err
	}
	svcs, err := c.APIServices()
	if err != nil {
		return nil, err
	}
	var out []API
	for _, d := range crds.Required {
		out = append(out, d.API())
	}
	for _, d := range svcs.Required {
		out = append(out, d.API())
	}
	return DedupAPIs(out), nil
}

// ProvidedAPIs are what opm registered as a bundle's provided APIs: every
// version of every CRD manifest among objects, then the CSV's owned API
// services; without CRD manifests the CSV's owned CRDs stand in for them.
// csv may be nil (only the objects count then). Objects that do not decode
// as a CRD are skipped.
func ProvidedAPIs(csv *CSV, objects [][]byte) ([]API, error) {
	var out []API
	crds := false
	for _, o := range objects {
		apis, ok := crdAPIs(o)
		if !ok {
			continue
		}
		crds = true
		out = append(out, apis...)
	}
	if csv != nil {
		defs, err := csv.CRDs()
		if err != nil {
			return nil, err
		}
		svcs, err := csv.APIServices()
		if err != nil {
			return nil, err
		}
		if !crds {
			for _, d := range defs.Owned {
				out = append(out, d.API())
			}
		}
		for _, d := range svcs.Owned {
			out = append(out, d.API())
		}
	}
	return DedupAPIs(out), nil
}

// crdAPIs are the APIs a CustomResourceDefinition manifest serves, one per
// version (the v1beta1 single spec.version when spec.versions is empty).
func crdAPIs(obj []byte) ([]API, bool) {
	if k, err := Kind(obj); err != nil || k != KindCRD {
		return nil, false
	}
	var crd struct {
		Kind string `json:"kind"`
		Spec struct {
			Group string `json:"group"`
			Names struct {
				Kind   string `json:"kind"`
				Plural string `json:"plural"`
			} `json:"names"`
			Version  string `json:"version"`
			Versions []struct {
				Name string `json:"name"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if json.Unmarshal(obj, &crd) != nil || crd.Kind != KindCRD {
		return nil, false
	}
	api := API{GVK: GVK{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}, Plural: crd.Spec.Names.Plural}
	var out []API
	if len(crd.Spec.Versions) == 0 && crd.Spec.Version != "" {
		api.Version = crd.Spec.Version
		out = append(out, api)
	}
	for _, v := range crd.Spec.Versions {
		api.Version = v.Name
		out = append(out, api)
	}
	return out, true
}

package manifest

import (
	"encoding/json"
)

// RequiredAPIs are the CRDs and then the API services the CSV requires,
// in CSV order, duplicates dropped.
func (c *CSV) RequiredAPIs() ([]API, error) {
	crds, svcs, err := c.apiDefinitions()
	if err != nil {
		return nil, err
	}
	return RequiredAPIsOf(crds, svcs), nil
}

// RequiredAPIsOf is RequiredAPIs of definitions decoded already.
func RequiredAPIsOf(crds CRDDefinitions, svcs APIServiceDefinitions) []API {
	var out []API
	for _, d := range crds.Required {
		out = append(out, d.API())
	}
	for _, d := range svcs.Required {
		out = append(out, d.API())
	}
	return DedupAPIs(out)
}

// apiDefinitions decodes the CSV's CRD and then its API service
// definitions.
func (c *CSV) apiDefinitions() (CRDDefinitions, APIServiceDefinitions, error) {
	crds, err := c.CRDs()
	if err != nil {
		return crds, APIServiceDefinitions{}, err
	}
	svcs, err := c.APIServices()
	return crds, svcs, err
}

// ProvidedAPIs are what opm registered as a bundle's provided APIs: every
// version of every CRD manifest among objects, then the CSV's owned API
// services; without CRD manifests the CSV's owned CRDs stand in for them.
// csv may be nil (only the objects count then). Objects that do not decode
// as a CRD are skipped.
func ProvidedAPIs(csv *CSV, objects [][]byte) ([]API, error) {
	objs := ObjectAPIsOf(objects)
	if csv == nil {
		return DedupAPIs(objs.APIs), nil
	}
	crds, svcs, err := csv.apiDefinitions()
	if err != nil {
		return nil, err
	}
	return ProvidedAPIsOf(objs, crds, svcs), nil
}

// ObjectAPIs are the APIs the CRD manifests among a bundle's objects
// serve, in order, duplicates kept.
type ObjectAPIs struct {
	APIs []API
	// CRDs says whether any object decoded as a CRD (one without
	// versions serves no API).
	CRDs bool
}

// ObjectAPIsOf decodes the CRD manifests among objects.
func ObjectAPIsOf(objects [][]byte) ObjectAPIs {
	var out ObjectAPIs
	for _, o := range objects {
		apis, ok := crdAPIs(o)
		if !ok {
			continue
		}
		out.CRDs = true
		out.APIs = append(out.APIs, apis...)
	}
	return out
}

// ProvidedAPIsOf is ProvidedAPIs of objects and CSV definitions decoded
// already: a bundle reader that needs them for more than this decodes
// each once.
func ProvidedAPIsOf(objs ObjectAPIs, crds CRDDefinitions, svcs APIServiceDefinitions) []API {
	out := append([]API(nil), objs.APIs...)
	if !objs.CRDs {
		for _, d := range crds.Owned {
			out = append(out, d.API())
		}
	}
	for _, d := range svcs.Owned {
		out = append(out, d.API())
	}
	return DedupAPIs(out)
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

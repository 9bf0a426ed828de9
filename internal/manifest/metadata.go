package manifest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// CSVMetadata is the value of an olm.csv.metadata property: the CSV's
// metadata and descriptive spec fields, field for field as opm built it
// from a CSV (and as opm's server decodes it).
type CSVMetadata struct {
	Annotations               map[string]string     `json:"annotations,omitempty"`
	APIServiceDefinitions     APIServiceDefinitions `json:"apiServiceDefinitions,omitempty"`
	CustomResourceDefinitions CRDDefinitions        `json:"crdDescriptions,omitempty"`
	Description               string                `json:"description,omitempty"`
	DisplayName               string                `json:"displayName,omitempty"`
	InstallModes              []InstallMode         `json:"installModes,omitempty"`
	Keywords                  []string              `json:"keywords,omitempty"`
	Labels                    map[string]string     `json:"labels,omitempty"`
	Links                     []AppLink             `json:"links,omitempty"`
	Maintainers               []Maintainer          `json:"maintainers,omitempty"`
	Maturity                  string                `json:"maturity,omitempty"`
	MinKubeVersion            string                `json:"minKubeVersion,omitempty"`
	NativeAPIs                []GVK                 `json:"nativeAPIs,omitempty"`
	Provider                  AppLink               `json:"provider,omitempty"`
}

// Metadata decodes the fields of the olm.csv.metadata value; the first
// field that does not decode is the error.
func (c *CSV) Metadata() (CSVMetadata, error) {
	var m CSVMetadata
	var err error
	if m.Annotations, err = c.Annotations(); err != nil {
		return m, err
	}
	if m.Labels, err = c.Labels(); err != nil {
		return m, err
	}
	for _, f := range []struct {
		field specField
		dst   any
	}{
		{specDescription, &m.Description},
		{specDisplayName, &m.DisplayName},
		{specAPIServices, &m.APIServiceDefinitions},
		{specCRDs, &m.CustomResourceDefinitions},
		{specInstallModes, &m.InstallModes},
		{specKeywords, &m.Keywords},
		{specLinks, &m.Links},
		{specMaintainers, &m.Maintainers},
		{specMaturity, &m.Maturity},
		{specMinKubeVersion, &m.MinKubeVersion},
		{specNativeAPIs, &m.NativeAPIs},
		{specProvider, &m.Provider},
	} {
		if err := c.decodeSpec(f.field, f.dst); err != nil {
			return m, err
		}
	}
	return m, nil
}

// SyntheticCSV is what a server knows of a bundle that has an
// olm.csv.metadata property and no CSV object.
type SyntheticCSV struct {
	// Name is the bundle name, the CSV's metadata.name.
	Name string
	// Version is spec.version; empty leaves it out.
	Version string
	// Metadata is the olm.csv.metadata value.
	Metadata CSVMetadata
	// PackageDescription stands in for an empty Metadata.Description.
	PackageDescription string
	// Icon is the package icon, nil for none.
	Icon *Icon
	// RelatedImages are the bundle's related images.
	RelatedImages []RelatedImage
}

// JSON is the CSV opm serves for the bundle: metadata and spec fields
// from the property, the name, version, package icon and description and
// related images, and a stub deployment install strategy (OLM's package
// server needs one). The layout follows the Kubernetes CSV type's JSON
// encoding (field order, which fields are always present), so clients
// that read csvJson see what opm sends.
func (s SyntheticCSV) JSON() ([]byte, error) {
	m := s.Metadata
	doc := syntheticDoc{
		Kind:       KindCSV,
		APIVersion: "operators.coreos.com/v1alpha1",
		Metadata:   syntheticMeta{Name: s.Name, Labels: m.Labels, Annotations: m.Annotations},
		Spec: syntheticSpec{
			Install:                   syntheticInstall{Strategy: "deployment"},
			Version:                   s.Version,
			Maturity:                  m.Maturity,
			CustomResourceDefinitions: m.CustomResourceDefinitions,
			APIServiceDefinitions:     m.APIServiceDefinitions,
			NativeAPIs:                m.NativeAPIs,
			MinKubeVersion:            m.MinKubeVersion,
			DisplayName:               m.DisplayName,
			Description:               m.Description,
			Keywords:                  m.Keywords,
			Maintainers:               m.Maintainers,
			Provider:                  m.Provider,
			Links:                     m.Links,
			InstallModes:              m.InstallModes,
			RelatedImages:             s.RelatedImages,
		},
	}
	if doc.Spec.Description == "" {
		doc.Spec.Description = s.PackageDescription
	}
	if s.Icon != nil {
		doc.Spec.Icon = []Icon{*s.Icon}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode synthetic CSV: %w", err)
	}
	return out, nil
}

// IconFromData is the CSV icon entry for raw icon bytes.
func IconFromData(data []byte, mediaType string) *Icon {
	return &Icon{Data: base64.StdEncoding.EncodeToString(data), MediaType: mediaType}
}

type syntheticDoc struct {
	Kind       string          `json:"kind"`
	APIVersion string          `json:"apiVersion"`
	Metadata   syntheticMeta   `json:"metadata"`
	Spec       syntheticSpec   `json:"spec"`
	Status     syntheticStatus `json:"status"`
}

type syntheticMeta struct {
	Name              string            `json:"name,omitempty"`
	CreationTimestamp *struct{}         `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

type syntheticSpec struct {
	Install                   syntheticInstall      `json:"install"`
	Version                   string                `json:"version,omitempty"`
	Maturity                  string                `json:"maturity,omitempty"`
	CustomResourceDefinitions CRDDefinitions        `json:"customresourcedefinitions"`
	APIServiceDefinitions     APIServiceDefinitions `json:"apiservicedefinitions"`
	NativeAPIs                []GVK                 `json:"nativeAPIs,omitempty"`
	MinKubeVersion            string                `json:"minKubeVersion,omitempty"`
	DisplayName               string                `json:"displayName"`
	Description               string                `json:"description,omitempty"`
	Keywords                  []string              `json:"keywords,omitempty"`
	Maintainers               []Maintainer          `json:"maintainers,omitempty"`
	Provider                  AppLink               `json:"provider"`
	Links                     []AppLink             `json:"links,omitempty"`
	Icon                      []Icon                `json:"icon,omitempty"`
	InstallModes              []InstallMode         `json:"installModes,omitempty"`
	Cleanup                   struct {
		Enabled bool `json:"enabled"`
	} `json:"cleanup"`
	RelatedImages []RelatedImage `json:"relatedImages,omitempty"`
}

type syntheticInstall struct {
	Strategy string `json:"strategy"`
	Spec     struct {
		Deployments []struct{} `json:"deployments"`
	} `json:"spec"`
}

type syntheticStatus struct {
	Cleanup struct{} `json:"cleanup"`
}

package manifest

import (
	"encoding/json"
	"strings"
)

// The CSV field types below mirror the operator-framework API types field
// by field (names, order, omitempty): values decoded into them and encoded
// again come out as opm encoded them.

// CRDDefinitions is spec.customresourcedefinitions.
type CRDDefinitions struct {
	Owned    []CRDDescription `json:"owned,omitempty"`
	Required []CRDDescription `json:"required,omitempty"`
}

// APIServiceDefinitions is spec.apiservicedefinitions.
type APIServiceDefinitions struct {
	Owned    []APIServiceDescription `json:"owned,omitempty"`
	Required []APIServiceDescription `json:"required,omitempty"`
}

// CRDDescription describes a CRD a CSV owns or requires. Name is
// "<plural>.<group>".
type CRDDescription struct {
	Name              string                 `json:"name"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	DisplayName       string                 `json:"displayName,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Resources         []APIResourceReference `json:"resources,omitempty"`
	StatusDescriptors []Descriptor           `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []Descriptor           `json:"specDescriptors,omitempty"`
	ActionDescriptor  []Descriptor           `json:"actionDescriptors,omitempty"`
}

// API is the description's GVK with the plural taken from its name.
func (d CRDDescription) API() API {
	plural, group, _ := strings.Cut(d.Name, ".")
	return API{GVK: GVK{Group: group, Version: d.Version, Kind: d.Kind}, Plural: plural}
}

// APIServiceDescription describes an aggregated API a CSV owns or
// requires. Name is the resource plural.
type APIServiceDescription struct {
	Name              string                 `json:"name"`
	Group             string                 `json:"group"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	DeploymentName    string                 `json:"deploymentName,omitempty"`
	ContainerPort     int32                  `json:"containerPort,omitempty"`
	DisplayName       string                 `json:"displayName,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Resources         []APIResourceReference `json:"resources,omitempty"`
	StatusDescriptors []Descriptor           `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []Descriptor           `json:"specDescriptors,omitempty"`
	ActionDescriptor  []Descriptor           `json:"actionDescriptors,omitempty"`
}

// API is the description's GVK with its name as the plural.
func (d APIServiceDescription) API() API {
	return API{GVK: GVK{Group: d.Group, Version: d.Version, Kind: d.Kind}, Plural: d.Name}
}

// APIResourceReference names a resource an API uses.
type APIResourceReference struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// Descriptor is the shape shared by spec, status and action descriptors.
type Descriptor struct {
	Path         string          `json:"path"`
	DisplayName  string          `json:"displayName,omitempty"`
	Description  string          `json:"description,omitempty"`
	XDescriptors []string        `json:"x-descriptors,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

// InstallMode is one entry of spec.installModes.
type InstallMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

// WebhookDescription is one entry of spec.webhookdefinitions, with the
// fields a check of what installs it reads.
type WebhookDescription struct {
	Type           string   `json:"type"`
	GenerateName   string   `json:"generateName"`
	DeploymentName string   `json:"deploymentName,omitempty"`
	ConversionCRDs []string `json:"conversionCRDs,omitempty"`
}

// AppLink is a named URL (spec.links, spec.provider).
type AppLink struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

// Maintainer is one entry of spec.maintainers.
type Maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

// Icon is one entry of spec.icon.
type Icon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

// RelatedImage is one entry of spec.relatedImages.
type RelatedImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

// Container is a container of a deployment of the CSV's install strategy.
type Container struct {
	Name  string
	Image string
	// Init is set for spec.template.spec.initContainers entries.
	Init bool
}

package migrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// csvDoc is the part of a ClusterServiceVersion the conversion reads. The
// metadata fields mirror the operator-framework API types field by field
// (names, order, omitempty) so that olm.csv.metadata values are encoded
// byte for byte as opm encoded them; decoding is case-insensitive like
// opm's typed decoding.
type csvDoc struct {
	Kind     string `json:"kind"`
	Metadata struct {
		Name        string            `json:"name"`
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"metadata"`
	Spec struct {
		Description string `json:"description,omitempty"`
		DisplayName string `json:"displayName,omitempty"`

		APIServiceDefinitions     apiServiceDefinitions     `json:"apiservicedefinitions,omitempty"`
		CustomResourceDefinitions customResourceDefinitions `json:"customresourcedefinitions,omitempty"`
		InstallModes              []installMode             `json:"installModes,omitempty"`
		Keywords                  []string                  `json:"keywords,omitempty"`
		Links                     []appLink                 `json:"links,omitempty"`
		Maintainers               []maintainer              `json:"maintainers,omitempty"`
		Maturity                  string                    `json:"maturity,omitempty"`
		MinKubeVersion            string                    `json:"minKubeVersion,omitempty"`
		NativeAPIs                []groupVersionKind        `json:"nativeAPIs,omitempty"`
		Provider                  appLink                   `json:"provider,omitempty"`
	} `json:"spec"`
}

type customResourceDefinitions struct {
	Owned    []crdDescription `json:"owned,omitempty"`
	Required []crdDescription `json:"required,omitempty"`
}

type apiServiceDefinitions struct {
	Owned    []apiServiceDescription `json:"owned,omitempty"`
	Required []apiServiceDescription `json:"required,omitempty"`
}

type crdDescription struct {
	Name              string                 `json:"name"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	DisplayName       string                 `json:"displayName,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Resources         []apiResourceReference `json:"resources,omitempty"`
	StatusDescriptors []descriptor           `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []descriptor           `json:"specDescriptors,omitempty"`
	ActionDescriptor  []descriptor           `json:"actionDescriptors,omitempty"`
}

type apiServiceDescription struct {
	Name              string                 `json:"name"`
	Group             string                 `json:"group"`
	Version           string                 `json:"version"`
	Kind              string                 `json:"kind"`
	DeploymentName    string                 `json:"deploymentName,omitempty"`
	ContainerPort     int32                  `json:"containerPort,omitempty"`
	DisplayName       string                 `json:"displayName,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Resources         []apiResourceReference `json:"resources,omitempty"`
	StatusDescriptors []descriptor           `json:"statusDescriptors,omitempty"`
	SpecDescriptors   []descriptor           `json:"specDescriptors,omitempty"`
	ActionDescriptor  []descriptor           `json:"actionDescriptors,omitempty"`
}

type apiResourceReference struct {
	Name    string `json:"name"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

// descriptor is the shape shared by spec, status and action descriptors.
type descriptor struct {
	Path         string          `json:"path"`
	DisplayName  string          `json:"displayName,omitempty"`
	Description  string          `json:"description,omitempty"`
	XDescriptors []string        `json:"x-descriptors,omitempty"`
	Value        json.RawMessage `json:"value,omitempty"`
}

type installMode struct {
	Type      string `json:"type"`
	Supported bool   `json:"supported"`
}

type appLink struct {
	Name string `json:"name,omitempty"`
	URL  string `json:"url,omitempty"`
}

type maintainer struct {
	Name  string `json:"name,omitempty"`
	Email string `json:"email,omitempty"`
}

type groupVersionKind struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
}

// csvMetadata is the value of an olm.csv.metadata property, field for field
// as opm built it from a CSV.
type csvMetadata struct {
	Annotations               map[string]string         `json:"annotations,omitempty"`
	APIServiceDefinitions     apiServiceDefinitions     `json:"apiServiceDefinitions,omitempty"`
	CustomResourceDefinitions customResourceDefinitions `json:"crdDescriptions,omitempty"`
	Description               string                    `json:"description,omitempty"`
	DisplayName               string                    `json:"displayName,omitempty"`
	InstallModes              []installMode             `json:"installModes,omitempty"`
	Keywords                  []string                  `json:"keywords,omitempty"`
	Labels                    map[string]string         `json:"labels,omitempty"`
	Links                     []appLink                 `json:"links,omitempty"`
	Maintainers               []maintainer              `json:"maintainers,omitempty"`
	Maturity                  string                    `json:"maturity,omitempty"`
	MinKubeVersion            string                    `json:"minKubeVersion,omitempty"`
	NativeAPIs                []groupVersionKind        `json:"nativeAPIs,omitempty"`
	Provider                  appLink                   `json:"provider,omitempty"`
}

// parseCSV decodes the parts of a CSV that olm.csv.metadata needs. The
// install strategy (deployments, usually most of a CSV) is skipped over
// rather than decoded. Keys match case-insensitively, as encoding/json
// matches struct fields.
func parseCSV(data []byte) (*csvDoc, error) {
	if !validJSON(data) {
		return nil, errors.New("not valid JSON")
	}
	var c csvDoc
	spec := map[string]any{
		"description":               &c.Spec.Description,
		"displayname":               &c.Spec.DisplayName,
		"apiservicedefinitions":     &c.Spec.APIServiceDefinitions,
		"customresourcedefinitions": &c.Spec.CustomResourceDefinitions,
		"installmodes":              &c.Spec.InstallModes,
		"keywords":                  &c.Spec.Keywords,
		"links":                     &c.Spec.Links,
		"maintainers":               &c.Spec.Maintainers,
		"maturity":                  &c.Spec.Maturity,
		"minkubeversion":            &c.Spec.MinKubeVersion,
		"nativeapis":                &c.Spec.NativeAPIs,
		"provider":                  &c.Spec.Provider,
	}
	var derr error
	err := objectFields(data, func(k, v []byte) bool {
		switch strings.ToLower(string(k)) {
		case "kind":
			derr = json.Unmarshal(v, &c.Kind)
		case "metadata":
			derr = json.Unmarshal(v, &c.Metadata)
		case "spec":
			if string(v) == "null" {
				return true
			}
			if err := objectFields(v, func(sk, sv []byte) bool {
				if dst, ok := spec[strings.ToLower(string(sk))]; ok {
					if err := json.Unmarshal(sv, dst); err != nil {
						derr = fmt.Errorf("spec.%s: %w", sk, err)
					}
				}
				return derr == nil
			}); err != nil && derr == nil {
				derr = fmt.Errorf("spec: %w", err)
			}
		}
		return derr == nil
	})
	if err != nil {
		return nil, err
	}
	if derr != nil {
		return nil, derr
	}
	return &c, nil
}

func (c *csvDoc) metadata() csvMetadata {
	return csvMetadata{
		Annotations:               c.Metadata.Annotations,
		APIServiceDefinitions:     c.Spec.APIServiceDefinitions,
		CustomResourceDefinitions: c.Spec.CustomResourceDefinitions,
		Description:               c.Spec.Description,
		DisplayName:               c.Spec.DisplayName,
		InstallModes:              c.Spec.InstallModes,
		Keywords:                  c.Spec.Keywords,
		Labels:                    c.Metadata.Labels,
		Links:                     c.Spec.Links,
		Maintainers:               c.Spec.Maintainers,
		Maturity:                  c.Spec.Maturity,
		MinKubeVersion:            c.Spec.MinKubeVersion,
		NativeAPIs:                c.Spec.NativeAPIs,
		Provider:                  c.Spec.Provider,
	}
}

// encodeCompact encodes v as compact JSON without escaping HTML
// characters, as opm encoded property values.
func encodeCompact(v any) (json.RawMessage, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// compactValue returns the stored JSON value compacted, with the bytes of
// strings left as stored (opm re-encoded raw values the same way).
func compactValue(raw string) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(raw)); err != nil {
		return nil, err
	}
	return json.RawMessage(buf.Bytes()), nil
}

package declcfgquery

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/blang/semver/v4"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/registry/api"
)

// bundleData is the channel-independent part of a served bundle. A bundle
// that is a member of several channels shares one bundleData, so its
// manifests and properties are held once.
type bundleData struct {
	version      string
	csvJSON      string
	objects      []string
	provided     []*api.GroupVersionKind
	required     []*api.GroupVersionKind
	dependencies []*api.Dependency
	properties   []*api.Property
}

// convertBundle prepares the channel-independent fields of b as opm serve
// fills them (reference: ConvertModelBundleToAPIBundle semantics).
func convertBundle(b *declcfg.ModelBundle) (*bundleData, error) {
	d := &bundleData{csvJSON: b.CsvJSON, objects: b.Objects}
	// The CSV is also one of the objects: hold its text once.
	for _, o := range d.objects {
		if o == d.csvJSON {
			d.csvJSON = o
			break
		}
	}
	var csvMeta []declcfg.Property
	for _, p := range b.Properties {
		switch p.Type {
		case declcfg.PropertyBundleObject:
			// Served as object/csvJson, never as a property: clients project
			// properties into CSV annotations, which would double CSV size.
			continue
		case declcfg.PropertyCSVMetadata:
			csvMeta = append(csvMeta, p)
			continue
		}
		value, err := normalizeJSON(p.Value)
		if err != nil {
			return nil, fmt.Errorf("bundle %q: property %s: %w", b.Name, p.Type, err)
		}
		d.properties = append(d.properties, &api.Property{Type: p.Type, Value: value})
		switch p.Type {
		case declcfg.PropertyPackage:
			var v declcfg.PackageValue
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("bundle %q: parse %s property: %w", b.Name, p.Type, err)
			}
			if d.version == "" {
				d.version = v.Version
			}
		case declcfg.PropertyGVK, declcfg.PropertyGVKRequired:
			var v declcfg.GVKValue
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("bundle %q: parse %s property: %w", b.Name, p.Type, err)
			}
			gvk := &api.GroupVersionKind{Group: v.Group, Version: v.Version, Kind: v.Kind}
			if p.Type == declcfg.PropertyGVK {
				d.provided = append(d.provided, gvk)
			} else {
				d.required = append(d.required, gvk)
				d.dependencies = append(d.dependencies, &api.Dependency{Type: declcfg.PropertyGVK, Value: value})
			}
		case declcfg.PropertyPackageRequired:
			var v declcfg.PackageRequiredValue
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("bundle %q: parse %s property: %w", b.Name, p.Type, err)
			}
			// The API's olm.package dependency carries the range as "version".
			dep, err := encodeJSON(struct {
				PackageName string `json:"packageName"`
				Version     string `json:"version"`
			}{v.PackageName, v.VersionRange}, false)
			if err != nil {
				return nil, err
			}
			d.dependencies = append(d.dependencies, &api.Dependency{Type: declcfg.PropertyPackage, Value: dep})
		}
	}
	if d.version == "" && !b.Version.Equals(semver.Version{}) {
		d.version = b.Version.String()
	}
	if d.csvJSON == "" && len(csvMeta) == 1 {
		csv, err := syntheticCSV(b, csvMeta[0], d.version)
		if err != nil {
			return nil, fmt.Errorf("bundle %q: %w", b.Name, err)
		}
		d.csvJSON = csv
		if len(d.objects) == 0 {
			d.objects = []string{csv}
		}
	}
	return d, nil
}

// normalizeJSON re-encodes a property value the way opm's loader leaves
// it: compact, keys sorted at every level, HTML characters unescaped,
// numbers through float64.
func normalizeJSON(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("decode value: %w", err)
	}
	return encodeJSON(v, false)
}

func encodeJSON(v any, escapeHTML bool) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(escapeHTML)
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("encode value: %w", err)
	}
	return string(bytes.TrimRight(buf.Bytes(), "\n")), nil
}

// The synthetic ClusterServiceVersion opm serves for a bundle that has an
// olm.csv.metadata property and no CSV object. The field layout follows
// the Kubernetes CSV type's JSON encoding (struct order, which fields are
// always present), so clients that read csvJson see what opm sends.
type csvDoc struct {
	Kind       string    `json:"kind"`
	APIVersion string    `json:"apiVersion"`
	Metadata   csvMeta   `json:"metadata"`
	Spec       csvSpec   `json:"spec"`
	Status     csvStatus `json:"status"`
}

type csvMeta struct {
	Name              string          `json:"name,omitempty"`
	CreationTimestamp *struct{}       `json:"creationTimestamp"`
	Labels            json.RawMessage `json:"labels,omitempty"`
	Annotations       json.RawMessage `json:"annotations,omitempty"`
}

type csvSpec struct {
	Install                   csvInstall      `json:"install"`
	Version                   string          `json:"version,omitempty"`
	Maturity                  string          `json:"maturity,omitempty"`
	CustomResourceDefinitions json.RawMessage `json:"customresourcedefinitions"`
	APIServiceDefinitions     json.RawMessage `json:"apiservicedefinitions"`
	NativeAPIs                json.RawMessage `json:"nativeAPIs,omitempty"`
	MinKubeVersion            string          `json:"minKubeVersion,omitempty"`
	DisplayName               string          `json:"displayName"`
	Description               string          `json:"description,omitempty"`
	Keywords                  json.RawMessage `json:"keywords,omitempty"`
	Maintainers               json.RawMessage `json:"maintainers,omitempty"`
	Provider                  json.RawMessage `json:"provider"`
	Links                     json.RawMessage `json:"links,omitempty"`
	Icon                      []csvIcon       `json:"icon,omitempty"`
	InstallModes              json.RawMessage `json:"installModes,omitempty"`
	Cleanup                   csvCleanup      `json:"cleanup"`
	RelatedImages             []csvImage      `json:"relatedImages,omitempty"`
}

type csvInstall struct {
	Strategy string `json:"strategy"`
	Spec     struct {
		Deployments []struct{} `json:"deployments"`
	} `json:"spec"`
}

type csvIcon struct {
	Data      string `json:"base64data"`
	MediaType string `json:"mediatype"`
}

type csvCleanup struct {
	Enabled bool `json:"enabled"`
}

type csvImage struct {
	Name  string `json:"name"`
	Image string `json:"image"`
}

type csvStatus struct {
	Cleanup struct{} `json:"cleanup"`
}

var emptyObject = json.RawMessage(`{}`)

func orEmpty(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return emptyObject
	}
	return raw
}

// syntheticCSV builds the CSV JSON for a bundle described only by its
// olm.csv.metadata property: metadata and spec fields from the property,
// name = bundle name, the package icon, the description falling back to
// the package's, spec.version = the bundle version when it is semver, the
// bundle's related images, and a stub deployment install strategy (OLM's
// package server needs one).
func syntheticCSV(b *declcfg.ModelBundle, p declcfg.Property, version string) (string, error) {
	var m declcfg.CSVMetadataValue
	if err := p.ParseValue(&m); err != nil {
		return "", err
	}
	doc := csvDoc{
		Kind:       "ClusterServiceVersion",
		APIVersion: "operators.coreos.com/v1alpha1",
		Metadata: csvMeta{
			Name:        b.Name,
			Labels:      m.Labels,
			Annotations: m.Annotations,
		},
		Spec: csvSpec{
			Install:                   csvInstall{Strategy: "deployment"},
			Maturity:                  m.Maturity,
			CustomResourceDefinitions: orEmpty(m.CustomResourceDefinitions),
			APIServiceDefinitions:     orEmpty(m.APIServiceDefinitions),
			NativeAPIs:                m.NativeAPIs,
			MinKubeVersion:            m.MinKubeVersion,
			DisplayName:               m.DisplayName,
			Description:               m.Description,
			Keywords:                  m.Keywords,
			Maintainers:               m.Maintainers,
			Provider:                  orEmpty(m.Provider),
			Links:                     m.Links,
			InstallModes:              m.InstallModes,
		},
	}
	if v, err := semver.Parse(version); err == nil {
		doc.Spec.Version = v.String()
	}
	if b.Package != nil {
		if doc.Spec.Description == "" {
			doc.Spec.Description = b.Package.Description
		}
		if b.Package.Icon != nil {
			doc.Spec.Icon = []csvIcon{{Data: base64.StdEncoding.EncodeToString(b.Package.Icon.Data), MediaType: b.Package.Icon.MediaType}}
		}
	}
	for _, ri := range b.RelatedImages {
		doc.Spec.RelatedImages = append(doc.Spec.RelatedImages, csvImage{Name: ri.Name, Image: ri.Image})
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return "", fmt.Errorf("encode synthetic CSV: %w", err)
	}
	return string(out), nil
}

// deprecation turns a model deprecation message into the API's, nil when unset.
func deprecation(msg string) *api.Deprecation {
	if msg == "" {
		return nil
	}
	return &api.Deprecation{Message: msg}
}

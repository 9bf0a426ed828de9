package manifest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/operator-catalog/olmcat/internal/jsonscan"
)

// specField numbers the spec fields the view knows.
type specField int

const (
	specVersion specField = iota
	specReplaces
	specSkips
	specDescription
	specDisplayName
	specIcon
	specKeywords
	specLinks
	specMaintainers
	specMaturity
	specMinKubeVersion
	specNativeAPIs
	specProvider
	specInstallModes
	specRelatedImages
	specCRDs
	specAPIServices
	specInstall
	specWebhooks
	numSpecFields
)

// specNames are the spec keys as the CSV type spells them (errors quote
// them); specFields maps them, lower-cased, to their field.
var specNames = [numSpecFields]string{
	specVersion:        "version",
	specReplaces:       "replaces",
	specSkips:          "skips",
	specDescription:    "description",
	specDisplayName:    "displayName",
	specIcon:           "icon",
	specKeywords:       "keywords",
	specLinks:          "links",
	specMaintainers:    "maintainers",
	specMaturity:       "maturity",
	specMinKubeVersion: "minKubeVersion",
	specNativeAPIs:     "nativeAPIs",
	specProvider:       "provider",
	specInstallModes:   "installModes",
	specRelatedImages:  "relatedImages",
	specCRDs:           "customresourcedefinitions",
	specAPIServices:    "apiservicedefinitions",
	specInstall:        "install",
	specWebhooks:       "webhookdefinitions",
}

var specFields = func() map[string]specField {
	m := make(map[string]specField, numSpecFields)
	for f, name := range specNames {
		m[strings.ToLower(name)] = specField(f)
	}
	return m
}()

// CSV is a parsed ClusterServiceVersion. ParseCSV records where each known
// field is; the accessors decode a field when called (each call decodes
// again: callers keep what they use more than once).
type CSV struct {
	raw        []byte
	apiVersion []byte
	kind       []byte
	metadata   []byte
	name       []byte
	annots     []byte
	labels     []byte
	spec       [numSpecFields][]byte
}

// ParseCSV checks that data is one valid JSON object and indexes the CSV
// fields the view knows, without decoding them. Keys match as
// encoding/json matches struct fields (case-insensitively, the last
// duplicate winning). It does not check the kind (see Kind, IsCSV).
func ParseCSV(data []byte) (*CSV, error) {
	if !jsonscan.Valid(data) {
		return nil, errors.New("not valid JSON")
	}
	return ParseValidCSV(data)
}

// ParseValidCSV is ParseCSV for data the caller already checked with
// jsonscan.Valid (or json.Valid): the check is not repeated.
func ParseValidCSV(data []byte) (*CSV, error) {
	c := &CSV{raw: data}
	var spec []byte
	err := jsonscan.ObjectFields(data, func(k, v []byte) error {
		switch lower(k) {
		case "apiversion":
			c.apiVersion = v
		case "kind":
			c.kind = v
		case "metadata":
			c.metadata = v
		case "spec":
			spec = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if err := c.indexMetadata(); err != nil {
		return nil, err
	}
	if spec == nil || isNull(spec) {
		return c, nil
	}
	err = jsonscan.ObjectFields(spec, func(k, v []byte) error {
		if f, ok := specFields[lower(k)]; ok {
			c.spec[f] = v
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("spec: %w", err)
	}
	return c, nil
}

func (c *CSV) indexMetadata() error {
	if c.metadata == nil || isNull(c.metadata) {
		return nil
	}
	err := jsonscan.ObjectFields(c.metadata, func(k, v []byte) error {
		switch lower(k) {
		case "name":
			c.name = v
		case "annotations":
			c.annots = v
		case "labels":
			c.labels = v
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	return nil
}

// lower returns the ASCII lower case of a short key; the conversion of
// the result for a map index or switch does not allocate when nothing
// changes.
func lower(k []byte) string {
	for _, c := range k {
		if c >= 'A' && c <= 'Z' || c >= 0x80 {
			return toLower(k)
		}
	}
	return string(k)
}

func toLower(k []byte) string {
	b := make([]byte, len(k))
	for i, c := range k {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b)
}

func isNull(v []byte) bool { return string(v) == "null" }

// Raw is the CSV's JSON as given to ParseCSV.
func (c *CSV) Raw() []byte { return c.raw }

// decode decodes the raw value v (absent: nothing) into dst, naming the
// field on error.
func decode(what string, v []byte, dst any) error {
	if v == nil {
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

func (c *CSV) decodeSpec(f specField, dst any) error {
	return decode("spec."+specNames[f], c.spec[f], dst)
}

// str decodes a string field leniently: "" when absent or not a string.
func str(v []byte) string {
	s, _ := jsonscan.String(v)
	return s
}

// strictString decodes a string field: "" when absent or null, an error
// when it is something else.
func strictString(what string, v []byte) (string, error) {
	if v == nil {
		return "", nil
	}
	if s, ok := jsonscan.String(v); ok {
		return s, nil
	}
	var s string
	err := decode(what, v, &s)
	return s, err
}

// APIVersion is the CSV's apiVersion, "" when absent or not a string.
func (c *CSV) APIVersion() string { return str(c.apiVersion) }

// Name is metadata.name, "" when absent or not a string.
func (c *CSV) Name() string { return str(c.name) }

// Annotations decodes metadata.annotations.
func (c *CSV) Annotations() (map[string]string, error) {
	var m map[string]string
	err := decode("metadata.annotations", c.annots, &m)
	return m, err
}

// Annotation is the string value of the annotation key, "" when absent,
// not a string, or the annotations do not decode as an object.
func (c *CSV) Annotation(key string) string {
	if c.annots == nil {
		return ""
	}
	var out string
	_ = jsonscan.ObjectFields(c.annots, func(k, v []byte) error {
		if string(k) == key {
			out = str(v) // the last duplicate wins, as when decoding
		}
		return nil
	})
	return out
}

// Labels decodes metadata.labels.
func (c *CSV) Labels() (map[string]string, error) {
	var m map[string]string
	err := decode("metadata.labels", c.labels, &m)
	return m, err
}

// Version is spec.version.
func (c *CSV) Version() (string, error) {
	return strictString("spec.version", c.spec[specVersion])
}

// Replaces is spec.replaces.
func (c *CSV) Replaces() (string, error) {
	return strictString("spec.replaces", c.spec[specReplaces])
}

// Skips is spec.skips.
func (c *CSV) Skips() ([]string, error) {
	var s []string
	err := c.decodeSpec(specSkips, &s)
	return s, err
}

// Description is spec.description.
func (c *CSV) Description() (string, error) {
	return strictString("spec.description", c.spec[specDescription])
}

// Icons is spec.icon.
func (c *CSV) Icons() ([]Icon, error) {
	var s []Icon
	err := c.decodeSpec(specIcon, &s)
	return s, err
}

// RelatedImages is spec.relatedImages.
func (c *CSV) RelatedImages() ([]RelatedImage, error) {
	var s []RelatedImage
	err := c.decodeSpec(specRelatedImages, &s)
	return s, err
}

// CRDs is spec.customresourcedefinitions.
func (c *CSV) CRDs() (CRDDefinitions, error) {
	var d CRDDefinitions
	err := c.decodeSpec(specCRDs, &d)
	return d, err
}

// APIServices is spec.apiservicedefinitions.
func (c *CSV) APIServices() (APIServiceDefinitions, error) {
	var d APIServiceDefinitions
	err := c.decodeSpec(specAPIServices, &d)
	return d, err
}

// InstallModes is spec.installModes.
func (c *CSV) InstallModes() ([]InstallMode, error) {
	var s []InstallMode
	err := c.decodeSpec(specInstallModes, &s)
	return s, err
}

// Webhooks is spec.webhookdefinitions.
func (c *CSV) Webhooks() ([]WebhookDescription, error) {
	var s []WebhookDescription
	err := c.decodeSpec(specWebhooks, &s)
	return s, err
}

// Kind is the CSV's kind, "" when absent or not a string.
func (c *CSV) Kind() string { return str(c.kind) }

// InstallStrategy is spec.install.strategy and the number of entries of
// spec.install.spec.deployments.
func (c *CSV) InstallStrategy() (strategy string, deployments int, err error) {
	install := c.spec[specInstall]
	if install == nil || isNull(install) {
		return "", 0, nil
	}
	var in struct {
		Strategy string `json:"strategy"`
		Spec     struct {
			Deployments []json.RawMessage `json:"deployments"`
		} `json:"spec"`
	}
	if err := decode("spec.install", install, &in); err != nil {
		return "", 0, err
	}
	return in.Strategy, len(in.Spec.Deployments), nil
}

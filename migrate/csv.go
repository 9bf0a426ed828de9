package migrate

import (
	"bytes"
	"encoding/json"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// csvImages is what the related-image conversion needs from a CSV.
type csvImages struct {
	related []manifest.RelatedImage
	// containers maps a deployment container image to the name of the
	// first container that runs it.
	containers map[string]string
}

// readCSV reads what the conversion needs from the bundle's CSV
// (st.csvJSON, already checked to be valid JSON): related images and
// container names always, the olm.csv.metadata value when the migrate
// level writes it for this bundle.
func (c *converter) readCSV(st *bundleState) error {
	csv, err := manifest.ParseValidCSV(st.csvJSON)
	if err != nil {
		return err
	}
	related, err := csv.RelatedImages()
	if err != nil {
		return err
	}
	cts, err := csv.Containers()
	if err != nil {
		return err
	}
	imgs := &csvImages{related: related, containers: map[string]string{}}
	for _, ct := range cts {
		if _, ok := imgs.containers[ct.Image]; !ok && ct.Image != "" && ct.Name != "" {
			imgs.containers[ct.Image] = ct.Name
		}
	}
	st.images = imgs
	if c.o.csvMetadata() && st.row.BundlePath != "" {
		meta, err := csv.Metadata()
		if err != nil {
			return err
		}
		st.csvMeta = &meta
	}
	return nil
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

package template

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Convert reads a stream of catalog blobs from r and writes it to w as a
// template of type t (basic or substitutes), as opm alpha
// convert-template does: every blob in input order with its keys sorted;
// for basic, each olm.bundle reduced to its schema and image; for
// substitutes, an empty substitutions list. JSON is indented by four
// spaces with HTML characters escaped; YAML starts with "---" and ends
// with an empty line. Unlike opm, numbers are kept as written (opm passes
// them through float64).
func Convert(w io.Writer, r io.Reader, t Type, f declcfg.Format) error {
	if t != TypeBasic && t != TypeSubstitutes {
		return fmt.Errorf("cannot convert to a %s template (basic or substitutes)", t)
	}
	var entries []json.RawMessage
	err := declcfg.DecodeStream(r, func(blob json.RawMessage, index int) error {
		e, err := convertBlob(blob, t)
		if err != nil {
			return fmt.Errorf("blob #%d: %w", index, err)
		}
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		return err
	}
	var doc any = struct {
		Schema  string            `json:"schema"`
		Entries []json.RawMessage `json:"entries"`
	}{SchemaBasic, entries}
	if t == TypeSubstitutes {
		doc = struct {
			Schema        string            `json:"schema"`
			Entries       []json.RawMessage `json:"entries"`
			Substitutions []Substitution    `json:"substitutions"`
		}{SchemaSubstitutes, entries, []Substitution{}}
	}
	return writeDocument(w, doc, f)
}

// writeDocument writes a template document as opm convert-template
// does: JSON indented by four spaces (HTML characters escaped), or YAML
// after "---"; then a newline.
func writeDocument(w io.Writer, doc any, f declcfg.Format) error {
	out, err := json.MarshalIndent(doc, "", "    ")
	if err != nil {
		return err
	}
	if f == declcfg.FormatYAML {
		y, err := yaml.JSONToYAML(out)
		if err != nil {
			return err
		}
		out = append([]byte("---\n"), y...)
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// convertBlob re-encodes a blob with its keys sorted; for the basic
// template a bundle keeps only its schema and image.
func convertBlob(blob json.RawMessage, t Type) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(blob))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if t == TypeBasic && m["schema"] == declcfg.SchemaBundle {
		var b struct {
			Image string `json:"image"`
		}
		if err := json.Unmarshal(blob, &b); err != nil {
			return nil, fmt.Errorf("parse bundle: %w", err)
		}
		return json.Marshal(struct {
			Schema string `json:"schema"`
			Image  string `json:"image"`
		}{declcfg.SchemaBundle, b.Image})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(buf.Bytes()), nil
}

package declcfg

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// Converting an olm.bundle blob to YAML through sigs.k8s.io/yaml costs a
// YAML parse and a YAML emit of every byte, and most of a bundle's bytes
// are the base64 manifests of its olm.bundle.object values, which YAML
// leaves as they are. bundleYAML swaps each
// such manifest for a short placeholder of the same YAML kind (a plain
// scalar that resolves to a string: letters and digits, starting with a
// letter), converts the now small blob, and puts the manifests back in
// place of the placeholders. A plain scalar without spaces is emitted on
// one line as is whatever its length, so the result is byte for byte what
// converting the whole blob gives (tests compare the two).

// placeholderPrefix starts every placeholder; the index of the manifest
// follows as placeholderDigits decimal digits.
const (
	placeholderPrefix = "olmcatInlineManifestPlaceholder"
	placeholderDigits = 6
)

// minSwapLen is the shortest manifest worth swapping.
const minSwapLen = 64

// swappable reports whether base64 text d is emitted exactly like a
// placeholder: a plain scalar resolving to a string, which a long text of
// base64 characters starting with a letter always is.
func swappable(d []byte) bool {
	if len(d) < minSwapLen {
		return false
	}
	c := d[0]
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// bundleYAML returns the YAML form of bd (the blob's compact JSON
// converted by yaml.JSONToYAML). buf is scratch space.
func bundleYAML(bd *Bundle, buf *bytes.Buffer) ([]byte, error) {
	var manifests [][]byte
	var props []Property
	for i, p := range bd.Properties {
		if p.Type != PropertyBundleObject {
			continue
		}
		d := inlineBase64(p.Value)
		if !swappable(d) {
			continue
		}
		if props == nil {
			props = append([]Property(nil), bd.Properties...)
		}
		props[i].Value = json.RawMessage(`{"data":"` + placeholder(len(manifests)) + `"}`)
		manifests = append(manifests, d)
	}
	if manifests == nil || len(manifests) >= 1e6 {
		return blobYAML(bd, buf)
	}
	small := *bd
	small.Properties = props
	if err := encodeCompact(buf, &small); err != nil {
		return nil, err
	}
	if bytes.Count(buf.Bytes(), []byte(placeholderPrefix)) != len(manifests) {
		return blobYAML(bd, buf) // the blob itself holds the prefix somewhere
	}
	y, err := safeJSONToYAML(buf.Bytes())
	if err != nil {
		return nil, err
	}
	out, ok := restoreManifests(y, manifests)
	if !ok {
		return blobYAML(bd, buf)
	}
	return out, nil
}

func placeholder(i int) string {
	s := strconv.Itoa(i)
	for len(s) < placeholderDigits {
		s = "0" + s
	}
	return placeholderPrefix + s
}

// restoreManifests replaces each placeholder in y with its manifest. ok
// is false unless every placeholder occurs exactly once.
func restoreManifests(y []byte, manifests [][]byte) ([]byte, bool) {
	n := len(y)
	for _, m := range manifests {
		n += len(m)
	}
	out := make([]byte, 0, n)
	seen := make([]bool, len(manifests))
	rest := y
	for {
		i := bytes.Index(rest, []byte(placeholderPrefix))
		if i < 0 {
			break
		}
		out = append(out, rest[:i]...)
		rest = rest[i+len(placeholderPrefix):]
		if len(rest) < placeholderDigits {
			return nil, false
		}
		idx, err := strconv.Atoi(string(rest[:placeholderDigits]))
		if err != nil || idx < 0 || idx >= len(manifests) || seen[idx] {
			return nil, false
		}
		seen[idx] = true
		out = append(out, manifests[idx]...)
		rest = rest[placeholderDigits:]
	}
	for _, s := range seen {
		if !s {
			return nil, false
		}
	}
	return append(out, rest...), true
}

// blobYAML converts any blob to YAML the plain way: compact JSON without
// HTML escaping, then yaml.JSONToYAML.
func blobYAML(v any, buf *bytes.Buffer) ([]byte, error) {
	if err := encodeCompact(buf, v); err != nil {
		return nil, err
	}
	return safeJSONToYAML(buf.Bytes())
}

// encodeCompact writes v's compact JSON, HTML characters not escaped, to
// buf (reset first).
func encodeCompact(buf *bytes.Buffer, v any) error {
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return nil
}

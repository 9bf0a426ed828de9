package declcfg

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/internal/crashpoint"
	"github.com/operator-catalog/olmcat/internal/jsonscan"
	"github.com/operator-catalog/olmcat/internal/manifest"
)

// safePathElement maps a name to a single path element that cannot leave
// its folder: "/", "\", "%", NUL and control characters are
// percent-encoded, "." and ".." are encoded, and the empty name becomes
// "%". The mapping is injective, so distinct names never share a path,
// and names that are already safe are unchanged. Over-long names are
// shortened with a hash suffix.
func safePathElement(name string) string {
	var b strings.Builder
	switch name {
	case "":
		return "%"
	case ".":
		return "%2E"
	case "..":
		return "%2E%2E"
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	s := b.String()
	const maxLen = 200 // leaves room for extensions and suffixes under NAME_MAX (255)
	if len(s) > maxLen {
		sum := sha256.Sum256([]byte(name))
		cut := maxLen - 17
		for cut > 0 && s[cut-1] == '%' || cut > 1 && s[cut-2] == '%' {
			cut-- // never split an escape
		}
		s = s[:cut] + "~" + hex.EncodeToString(sum[:8])
	}
	return s
}

// uniqueName returns base+ext, or base-N+ext for the smallest N >= 2 not
// yet used, and records it.
func uniqueName(base, ext string, used map[string]bool) string {
	name := base + ext
	for n := 2; used[name]; n++ {
		name = fmt.Sprintf("%s-%d%s", base, n, ext)
	}
	used[name] = true
	return name
}

// objectFileBase names an object file after the proposal:
// <metadata.name>_<group>_<version>_<kind lowercased>.
func objectFileBase(obj []byte) string {
	head := manifest.ReadHead(obj)
	group, version := "", head.APIVersion
	if i := strings.LastIndex(head.APIVersion, "/"); i >= 0 {
		group, version = head.APIVersion[:i], head.APIVersion[i+1:]
	}
	return safePathElement(strings.Join([]string{head.Name, group, version, strings.ToLower(head.Kind)}, "_"))
}

// objectFileContent returns the bytes to store for object obj so that
// reading the file back (objectFromFile) gives obj exactly: YAML when the
// YAML round trip reproduces obj, else obj's own JSON text (valid YAML
// too). ok is false when neither does; the object then stays inline.
func objectFileContent(obj []byte) (content []byte, ok bool) {
	if !canonicalJSON(obj) {
		// The YAML round trip cannot give obj back: skip its two
		// conversions, which cost most of writing the objects layout.
	} else if y, ok := swappedObjectYAML(obj); ok {
		return y, true
	} else if y, err := objectJSONToYAML(obj); err == nil {
		if back, err := objectFromFile(y); err == nil && bytes.Equal(back, obj) {
			return y, true
		}
	}
	content = append(append([]byte(nil), obj...), '\n')
	if back, err := objectFromFile(content); err == nil && bytes.Equal(back, obj) {
		return content, true
	}
	return nil, false
}

// canonicalJSON reports false when obj is certainly not what a YAML file
// decodes to (objectFromFile: sigs.k8s.io/yaml's YAMLToJSON, which writes
// compact JSON through encoding/json: object keys in byte order, no
// duplicates, "<", ">" and "&" escaped). It checks only those three
// properties, so true does not promise a round trip; a key holding a
// backslash escape is not compared with its neighbours.
func canonicalJSON(obj []byte) bool {
	if bytes.ContainsAny(obj, "<>&") {
		return false
	}
	type level struct {
		last    []byte
		unknown bool // a key with an escape: order not checked
	}
	var stack []level
	for i := 0; i < len(obj); i++ {
		switch c := obj[i]; c {
		case ' ', '\t', '\n', '\r':
			return false // encoding/json writes compact JSON
		case '{':
			stack = append(stack, level{})
		case '}':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case '"':
			end, err := jsonscan.SkipString(obj, i)
			if err != nil {
				return false
			}
			if end < len(obj) && obj[end] == ':' && len(stack) > 0 {
				top := &stack[len(stack)-1]
				key := obj[i+1 : end-1]
				switch {
				case bytes.IndexByte(key, '\\') >= 0:
					top.unknown, top.last = true, nil
				case top.last != nil && !top.unknown && bytes.Compare(key, top.last) <= 0:
					return false
				default:
					top.last, top.unknown = key, false
				}
			}
			i = end - 1
		}
	}
	return true
}

// safeJSONToYAML is yaml.JSONToYAML guarded against parser panics (the
// object comes from an untrusted catalog).
func safeJSONToYAML(obj []byte) (_ []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("YAML parser failure: %v", p)
		}
	}()
	return yaml.JSONToYAML(obj)
}

// writeBundleObjects writes each inline bundle object of cfg's bundles to
// its own file under dir/objects/<bundle>/ and returns a copy of cfg whose
// olm.bundle.object properties reference those files (relative to dir).
// Objects that a file could not reproduce byte for byte stay inline.
func writeBundleObjects(dir string, cfg *DeclarativeConfig) (*DeclarativeConfig, bool, error) {
	out := *cfg
	out.Bundles = make([]Bundle, len(cfg.Bundles))
	order := make([]int, len(cfg.Bundles))
	for i := range order {
		order[i] = i
	}
	// Name folders in bundle-name order so duplicates are numbered the same
	// way whatever order the blobs came in.
	sort.SliceStable(order, func(a, b int) bool { return cfg.Bundles[order[a]].Name < cfg.Bundles[order[b]].Name })
	usedDirs := map[string]bool{}
	// Bundles of one package mostly repeat their objects (a CRD changes
	// rarely between versions), and objectFileContent's YAML round trip is
	// the costly part of this layout: work each distinct object out once.
	type fileContent struct {
		content []byte
		ok      bool
	}
	contents := map[string]fileContent{}
	wrote := false
	for _, i := range order {
		b := cfg.Bundles[i]
		props := b.Properties
		b.Properties = nil
		var bdir string
		usedFiles := map[string]bool{}
		for j, p := range props {
			if p.Type != PropertyBundleObject {
				b.Properties = append(b.Properties, p)
				continue
			}
			v, err := parseBundleObject(p)
			if err != nil {
				return nil, false, fmt.Errorf("bundle %q property #%d: %w", b.Name, j, err)
			}
			if v.Ref != "" || len(v.Data) == 0 {
				return nil, false, fmt.Errorf("bundle %q property #%d: olm.bundle.object without inline data cannot be written (load the catalog with LoadDir to resolve refs)", b.Name, j)
			}
			fc, seen := contents[string(v.Data)]
			if !seen {
				fc.content, fc.ok = objectFileContent(v.Data)
				contents[string(v.Data)] = fc
			}
			content, ok := fc.content, fc.ok
			if !ok {
				b.Properties = append(b.Properties, p)
				continue
			}
			if bdir == "" {
				bdir = uniqueName(safePathElement(b.Name), "", usedDirs)
				if !wrote {
					// One mkdir per directory, no MkdirAll: its stats
					// would double the filesystem calls.
					if err := os.Mkdir(filepath.Join(dir, objectsDir), 0o755); err != nil {
						return nil, false, fmt.Errorf("bundle %q: %w", b.Name, err)
					}
					wrote = true
				}
				if err := os.Mkdir(filepath.Join(dir, objectsDir, bdir), 0o755); err != nil {
					return nil, false, fmt.Errorf("bundle %q: %w", b.Name, err)
				}
			}
			fname := uniqueName(objectFileBase(v.Data), ".yaml", usedFiles)
			crashpoint.Hit("write object file " + fname)
			if err := os.WriteFile(filepath.Join(dir, objectsDir, bdir, fname), content, 0o644); err != nil {
				return nil, false, fmt.Errorf("bundle %q: %w", b.Name, err)
			}
			wrote = true
			b.Properties = append(b.Properties, MustProperty(PropertyBundleObject, BundleObjectValue{Ref: objectsDir + "/" + bdir + "/" + fname}))
		}
		out.Bundles[i] = b
	}
	return &out, wrote, nil
}

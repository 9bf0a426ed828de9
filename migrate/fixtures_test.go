package migrate

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

const fixturesDir = "../fixtures/legacy"

// fixtureNames lists every real legacy database in the repository.
func fixtureNames(t testing.TB) []string {
	t.Helper()
	ents, err := os.ReadDir(fixturesDir)
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if _, err := os.Stat(filepath.Join(fixturesDir, e.Name(), "index.db")); err == nil {
			out = append(out, e.Name())
		}
	}
	require.NotEmpty(t, out)
	return out
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return sha256.Sum256(data)
}

// cprop is a property with its value compacted as written (escapes kept),
// so that comparisons see the bytes opm wrote, not just the same JSON.
type cprop struct {
	Type  string
	Value string
}

// cblob is one blob: the top-level fields decoded generically, properties
// kept as compact bytes.
type cblob struct {
	Fields map[string]any
	Props  []cprop
}

// readCatalog reads every catalog file under dir into per-file blob lists,
// keyed by slash path relative to dir.
func readCatalog(t *testing.T, dir string) map[string][]cblob {
	t.Helper()
	out := map[string][]cblob{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		for {
			var raw map[string]json.RawMessage
			if err := dec.Decode(&raw); err == io.EOF {
				break
			} else if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = append(out[filepath.ToSlash(rel)], toCBlob(t, raw))
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

func toCBlob(t *testing.T, raw map[string]json.RawMessage) cblob {
	t.Helper()
	b := cblob{Fields: map[string]any{}}
	for k, v := range raw {
		if k == "properties" {
			var ps []struct {
				Type  string          `json:"type"`
				Value json.RawMessage `json:"value"`
			}
			require.NoError(t, json.Unmarshal(v, &ps))
			for _, p := range ps {
				var buf bytes.Buffer
				require.NoError(t, json.Compact(&buf, p.Value))
				v := buf.String()
				if p.Type == declcfg.PropertyBundleObject {
					// Keep failure messages short: compare objects by digest.
					v = fmt.Sprintf("sha256:%x", sha256.Sum256(buf.Bytes()))
				}
				b.Props = append(b.Props, cprop{Type: p.Type, Value: v})
			}
			continue
		}
		var x any
		require.NoError(t, json.Unmarshal(v, &x))
		b.Fields[k] = x
	}
	return b
}

// normalize applies the documented differences (MIGRATION.md, "What
// changes") to our catalog so that it can be compared with opm's:
//   - the package description opm never filled is removed;
//   - olm.label.required and olm.constraint properties (dependencies opm
//     lost; opm's outputs have none of these types) are removed;
//   - related image names are blanked: opm named only spec.relatedImages
//     entries, which checkRelatedImageNames compares separately.
//
// It returns how many of each difference it removed, so that tests can
// check the differences really occur.
func normalize(cat map[string][]cblob) map[string]int {
	removed := map[string]int{}
	for _, blobs := range cat {
		for i := range blobs {
			b := &blobs[i]
			switch b.Fields["schema"] {
			case declcfg.SchemaPackage:
				if _, ok := b.Fields["description"]; ok {
					removed["description"]++
					delete(b.Fields, "description")
				}
			case declcfg.SchemaBundle:
				kept := b.Props[:0]
				for _, p := range b.Props {
					if p.Type == declcfg.PropertyLabelRequired || p.Type == declcfg.PropertyConstraint {
						removed[p.Type]++
						continue
					}
					kept = append(kept, p)
				}
				b.Props = kept
				if ris, ok := b.Fields["relatedImages"].([]any); ok {
					for _, ri := range ris {
						if ri.(map[string]any)["name"] != "" {
							removed["relatedImages.name"]++
						}
						ri.(map[string]any)["name"] = ""
					}
				}
			}
		}
	}
	return removed
}

// relatedImageNames maps bundle name -> image -> name for non-empty names.
func relatedImageNames(cat map[string][]cblob) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, blobs := range cat {
		for _, b := range blobs {
			if b.Fields["schema"] != declcfg.SchemaBundle {
				continue
			}
			name := b.Fields["name"].(string)
			ris, _ := b.Fields["relatedImages"].([]any)
			for _, ri := range ris {
				m := ri.(map[string]any)
				if n := m["name"].(string); n != "" {
					if out[name] == nil {
						out[name] = map[string]string{}
					}
					out[name][m["image"].(string)] = n
				}
			}
		}
	}
	return out
}

// documentedDifferences are, per fixture, how often each documented
// difference shows in the default migration: proof that the normalisation
// in TestFixturesMatchOPM removes something real, not just that it is
// harmless.
var documentedDifferences = map[string]map[string]int{
	"edge-before-substitutes": {declcfg.PropertyConstraint: 1},
	"edge-substitutes":        {declcfg.PropertyConstraint: 1},
	"community-bundles":       {"description": 14},
}

func nonZeroKeys(m map[string]int, allowed ...string) []string {
	out := []string{}
	for k, n := range m {
		if n > 0 {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	if len(out) == 0 {
		return allowed
	}
	return out
}

// TestFixturesMatchOPM migrates every real database and compares the result
// with what the real opm wrote, after applying each documented difference
// explicitly.
func TestFixturesMatchOPM(t *testing.T) {
	for _, name := range fixtureNames(t) {
		for _, variant := range []struct {
			dir   string
			level Level
		}{
			{"opm-migrate", MigrateLevelNone},
			{"opm-migrate-csvmetadata", MigrateLevelCSVMetadata},
		} {
			want := filepath.Join(fixturesDir, name, variant.dir)
			if _, err := os.Stat(want); err != nil {
				continue
			}
			t.Run(name+"/"+variant.dir, func(t *testing.T) {
				db := filepath.Join(fixturesDir, name, "index.db")
				before := fileSum(t, db)
				out := filepath.Join(t.TempDir(), "catalog")
				rep, err := Migrate(context.Background(), db, out, WithMigrateLevel(variant.level))
				require.NoError(t, err)
				assert.Equal(t, before, fileSum(t, db), "the input database must not change")

				// The output passes declarative config validation as loaded from disk.
				cfg, err := declcfg.LoadDir(context.Background(), out)
				require.NoError(t, err)
				_, err = model.FromDeclcfg(cfg)
				require.NoError(t, err)

				got := readCatalog(t, out)
				exp := readCatalog(t, want)

				// Names opm gave (from spec.relatedImages) are kept.
				gotNames := relatedImageNames(got)
				for bundle, imgs := range relatedImageNames(exp) {
					for img, n := range imgs {
						assert.Equal(t, n, gotNames[bundle][img], "related image name of %s in %s", img, bundle)
					}
				}
				removed := normalize(got)
				// opm's side only loses the names it gave, which are
				// compared above; nothing else of the normalisation applies.
				expRemoved := normalize(exp)
				assert.Equal(t, []string{"relatedImages.name"}, nonZeroKeys(expRemoved, "relatedImages.name"))
				if want, ok := documentedDifferences[name]; ok && variant.level == MigrateLevelNone {
					for k, n := range want {
						assert.Equal(t, n, removed[k], "documented difference %s", k)
					}
				}
				require.Equal(t, sortedKeys(exp), sortedKeys(got), "catalog files")
				for file := range exp {
					if !assert.Equal(t, len(exp[file]), len(got[file]), "blobs in %s", file) {
						continue
					}
					for i := range exp[file] {
						assert.Equal(t, exp[file][i], got[file][i], "file %s blob %d", file, i)
					}
				}
				assert.Equal(t, len(got), rep.Counts.Packages)
			})
		}
	}
}

// TestFixturesRenderEqualsMigrate checks that render streams the same blobs
// migrate writes, in package order (JSON: both through this package's
// encoder, which TestFastJSONMatchesWriteStream checks against declcfg).
func TestFixturesRenderEqualsMigrate(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(fixturesDir, name, "index.db")
			var buf bytes.Buffer
			_, err := Render(context.Background(), db, &buf)
			require.NoError(t, err)
			out := filepath.Join(t.TempDir(), "catalog")
			_, err = Migrate(context.Background(), db, out)
			require.NoError(t, err)
			files := sortedKeys(readCatalog(t, out))
			sort.Strings(files)
			var want bytes.Buffer
			for _, f := range files {
				data, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(f)))
				require.NoError(t, err)
				want.Write(data)
			}
			assert.Equal(t, strings.TrimSpace(want.String()), strings.TrimSpace(buf.String()))
		})
	}
}

// TestRenderYAMLEqualsMigrateYAML checks the YAML path (declcfg's writers on
// both sides).
func TestRenderYAMLEqualsMigrateYAML(t *testing.T) {
	db := filepath.Join(fixturesDir, "opm-manifests", "index.db")
	var buf bytes.Buffer
	_, err := Render(context.Background(), db, &buf, WithFormat(declcfg.FormatYAML))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "catalog")
	_, err = Migrate(context.Background(), db, out, WithFormat(declcfg.FormatYAML))
	require.NoError(t, err)
	var want bytes.Buffer
	for _, pkg := range []string{"etcd", "prometheus", "strimzi-kafka-operator"} {
		data, err := os.ReadFile(filepath.Join(out, pkg, "catalog.yaml"))
		require.NoError(t, err)
		want.Write(data)
	}
	assert.Equal(t, want.String(), buf.String())
}

// TestFixturesObjectsLayoutYAML migrates every real database in the
// objects layout as YAML (declcfg's writer) and checks that the result
// loads, validates and holds the same blobs as the default output.
func TestFixturesObjectsLayoutYAML(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			db := filepath.Join(fixturesDir, name, "index.db")
			out := filepath.Join(t.TempDir(), "catalog")
			rep, err := Migrate(context.Background(), db, out, WithLayout(declcfg.LayoutObjects), WithFormat(declcfg.FormatYAML), WithKeepDeprecated(true))
			require.NoError(t, err)
			got, err := declcfg.LoadDir(context.Background(), out)
			require.NoError(t, err)
			_, err = model.FromDeclcfg(got)
			require.NoError(t, err)
			want, _, err := Load(context.Background(), db, WithKeepDeprecated(true))
			require.NoError(t, err)
			assert.Equal(t, len(want.Packages), len(got.Packages))
			assert.Equal(t, len(want.Channels), len(got.Channels))
			require.Equal(t, len(want.Bundles), len(got.Bundles))
			assert.Equal(t, len(want.Deprecations), len(got.Deprecations))
			assert.Equal(t, rep.Counts.Bundles, len(got.Bundles))
			declcfg.SortConfig(got)
			declcfg.SortConfig(want)
			for i := range want.Bundles {
				// Manifests come back from the object files as the same JSON.
				var objs []string
				for _, p := range want.Bundles[i].Properties {
					if p.Type == declcfg.PropertyBundleObject {
						var v declcfg.BundleObjectValue
						require.NoError(t, p.ParseValue(&v))
						objs = append(objs, string(v.Data))
					}
				}
				assert.Equal(t, len(objs), len(got.Bundles[i].Objects), want.Bundles[i].Name)
				assert.Equal(t, want.Bundles[i].RelatedImages, got.Bundles[i].RelatedImages)
			}
		})
	}
}

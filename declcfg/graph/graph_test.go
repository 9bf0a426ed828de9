package graph_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/graph"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// fixtures are declarative config catalogs: real opm migrations from
// fixtures/legacy and a catalog in testdata with every graph problem.
var fixtures = map[string]string{
	"small-fbb-deprecated": "../../fixtures/legacy/small-fbb-deprecated/opm-migrate",
	"opm-manifests":        "../../fixtures/legacy/opm-manifests/opm-migrate",
	"problems":             "testdata/problems",
}

func load(t *testing.T, name string) *graph.Graph {
	t.Helper()
	cfg, err := declcfg.LoadDir(context.Background(), fixtures[name])
	require.NoError(t, err)
	g, err := graph.Build(cfg)
	require.NoError(t, err)
	return g
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test -update to create %s", path)
	assert.Equal(t, string(want), string(got))
}

func TestGolden(t *testing.T) {
	writers := map[string]func(io.Writer, *graph.Graph) error{
		"mermaid": func(w io.Writer, g *graph.Graph) error { return graph.WriteMermaid(w, g) },
		"dot":     graph.WriteDOT,
	}
	for name := range fixtures {
		for ext, write := range writers {
			t.Run(name+"."+ext, func(t *testing.T) {
				var a, b bytes.Buffer
				require.NoError(t, write(&a, load(t, name)))
				require.NoError(t, write(&b, load(t, name)))
				assert.Equal(t, a.String(), b.String(), "output is deterministic")
				golden(t, name+"."+ext, a.Bytes())
			})
		}
	}
}

// svgDoc is the part of the SVG the tests look at.
type svgDoc struct {
	Channels []struct {
		Package string `xml:"data-package,attr"`
		Channel string `xml:"data-channel,attr"`
		Groups  []struct {
			Class string `xml:"class,attr"`
			Name  string `xml:"data-name,attr"`
		} `xml:"g"`
		Paths []struct {
			Class string `xml:"class,attr"`
		} `xml:"path"`
		Texts []struct {
			Class string `xml:"class,attr"`
		} `xml:"text"`
	} `xml:"g"`
}

func TestSVGCounts(t *testing.T) {
	// package/channel -> nodes, edges.
	want := map[string]map[string][2]int{
		"small-fbb-deprecated": {
			"bar/alpha": {2, 2}, "bar/stable": {3, 3}, "baz/stable": {3, 3},
			// foo.v0.2.0 was deprecated and dropped: absent, named by replaces.
			"foo/beta": {3, 2},
		},
		"opm-manifests": {
			// etcdoperator.v0.9.1 is only named by a skips: absent.
			"etcd/alpha": {4, 3}, "etcd/beta": {2, 1}, "etcd/stable": {4, 3},
			"prometheus/preview":           {3, 2},
			"strimzi-kafka-operator/alpha": {4, 3}, "strimzi-kafka-operator/beta": {3, 2},
			"strimzi-kafka-operator/stable": {2, 1},
		},
		"problems": {
			"p/absent": {3, 2}, "p/cycle": {3, 3}, "p/heads": {3, 1},
			"p/stranded": {3, 3}, "p/unmatched": {1, 0},
		},
	}
	for name, channels := range want {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, graph.WriteSVG(&buf, load(t, name)))
			var doc svgDoc
			require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc), "SVG is well-formed XML")
			got := map[string][2]int{}
			for _, c := range doc.Channels {
				if c.Channel == "" {
					continue
				}
				var n [2]int
				for _, g := range c.Groups {
					if strings.HasPrefix(g.Class, "node") {
						n[0]++
					}
				}
				for _, p := range c.Paths {
					if strings.HasPrefix(p.Class, "edge") {
						n[1]++
					}
				}
				got[c.Package+"/"+c.Channel] = n
			}
			assert.Equal(t, channels, got)
		})
	}
}

// TestProblemsMatchValidate checks that every graph finding drawn is one
// validation reports (errors) or lists as a warning, and the other way
// round, so that picture and text agree.
func TestProblemsMatchValidate(t *testing.T) {
	for name := range fixtures {
		t.Run(name, func(t *testing.T) {
			cfg, err := declcfg.LoadDir(context.Background(), fixtures[name])
			require.NoError(t, err)
			g, err := graph.Build(cfg)
			require.NoError(t, err)
			var drawn []string
			for _, p := range g.Packages {
				for _, c := range p.Channels {
					for _, f := range c.Findings {
						drawn = append(drawn, p.Name+"/"+c.Name+": "+f.Message)
					}
				}
			}
			var reported []string
			m, err := model.FromDeclcfg(cfg)
			if err != nil {
				var ve *model.ValidationError
				require.ErrorAs(t, err, &ve)
				for _, p := range ve.Problems {
					if p.Schema == declcfg.SchemaChannel {
						reported = append(reported, p.Package+"/"+p.Name+": "+p.Message)
					}
				}
			} else {
				for _, p := range m.Warnings() {
					reported = append(reported, p.Package+"/"+p.Name+": "+p.Message)
				}
			}
			if name == "problems" {
				require.NotEmpty(t, drawn)
				// The problems catalog is invalid, so model.FromDeclcfg gives
				// no model: its warnings are among the drawn findings only.
				for _, r := range reported {
					assert.Contains(t, drawn, r)
				}
				return
			}
			assert.ElementsMatch(t, reported, drawn)
		})
	}
}

func TestBuildFilters(t *testing.T) {
	cfg, err := declcfg.LoadDir(context.Background(), fixtures["small-fbb-deprecated"])
	require.NoError(t, err)
	g, err := graph.Build(cfg, graph.WithPackage("bar"), graph.WithChannel("stable"))
	require.NoError(t, err)
	require.Len(t, g.Packages, 1)
	require.Len(t, g.Packages[0].Channels, 1)
	assert.Equal(t, "stable", g.Packages[0].Channels[0].Name)
	assert.True(t, g.Packages[0].Channels[0].Default)
	_, err = graph.Build(cfg, graph.WithPackage("nope"))
	assert.ErrorContains(t, err, `package "nope" not found`)
	_, err = graph.Build(cfg, graph.WithChannel("nope"))
	assert.ErrorContains(t, err, `channel "nope" not found`)
}

// TestLegend: every mark and problem the picture uses has a legend entry,
// and no other.
func TestLegend(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, graph.WriteSVG(&buf, load(t, "problems")))
	var doc struct {
		Groups []struct {
			Class   string `xml:"class,attr"`
			Entries []struct {
				Kind string `xml:"data-kind,attr"`
			} `xml:"g"`
		} `xml:"g"`
	}
	require.NoError(t, xml.Unmarshal(buf.Bytes(), &doc))
	var kinds []string
	for _, g := range doc.Groups {
		if g.Class == "legend" {
			for _, e := range g.Entries {
				kinds = append(kinds, e.Kind)
			}
		}
	}
	assert.Equal(t, []string{
		"edge-replaces", "edge-skips", "head", "deprecated", "absent", "deprecated-channel",
		"problem-cycle", "problem-missing-replaces", "problem-multiple-heads", "problem-stranded", "problem-unmatched-skip-range",
	}, kinds)
}

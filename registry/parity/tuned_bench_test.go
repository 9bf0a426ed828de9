package parity

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/internal/manifest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// benchBundles are 10,000 bundles in 400 packages, named like
// scripts/gen-bench-db.sh's, each providing two APIs.
func benchBundles() []*api.Bundle {
	out := make([]*api.Bundle, 0, 10_000)
	for i := range 10_000 {
		pkg := fmt.Sprintf("pkg-%04d", i/25)
		out = append(out, &api.Bundle{
			PackageName: pkg, CsvName: fmt.Sprintf("%s.v1.%d.0", pkg, i%25), ChannelName: "stable",
			Version: fmt.Sprintf("1.%d.0", i%25), BundlePath: fmt.Sprintf("quay.io/example/%s-bundle:v1.%d.0", pkg, i%25),
			ProvidedApis: []*api.GroupVersionKind{
				{Group: pkg + ".example.com", Version: "v1", Kind: "Widget"},
				{Group: pkg + ".example.com", Version: "v1", Kind: "Gadget"},
			},
		})
	}
	return out
}

// plainNameSet is the plain set of names: the strings in a map.
type plainNameSet struct {
	mu sync.Mutex
	m  map[string]struct{}
}

func (s *plainNameSet) add(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.m[name]; ok {
		return false
	}
	s.m[strings.Clone(name)] = struct{}{} // a name must not pin the answer it came in
	return true
}

// BenchmarkNameSet claims the names of 10,000 bundles in the hashed set
// and in a map of strings, and reports the bytes each keeps.
func BenchmarkNameSet(b *testing.B) {
	bundles := benchBundles()
	names := make([]string, len(bundles))
	for i, bd := range bundles {
		names[i] = bd.CsvName
	}
	sets := map[string]func() func(string) bool{
		"hashed":  func() func(string) bool { return newNameSet().add },
		"strings": func() func(string) bool { s := &plainNameSet{m: map[string]struct{}{}}; return s.add },
	}
	for _, name := range []string{"hashed", "strings"} {
		b.Run(name, func(b *testing.B) {
			var kept uint64
			for range b.N {
				kept = heapGrowth(func() any {
					add := sets[name]()
					for _, n := range names {
						add(n)
					}
					return add
				})
			}
			b.ReportMetric(float64(kept), "kept-B")
		})
	}
}

// plainSpill is the plain index of a spilled ListBundles answer: each
// package's bundles as offset and length pairs under its name.
type plainSpill struct {
	f     *os.File
	w     *bufio.Writer
	size  int64
	spans map[string][]struct{ off, n int64 }
	gvks  map[manifest.GVK]bool
}

func (s *plainSpill) add(b *api.Bundle) error {
	data, err := proto.Marshal(b)
	if err != nil {
		return err
	}
	if _, err := s.w.Write(data); err != nil {
		return err
	}
	s.spans[b.PackageName] = append(s.spans[b.PackageName], struct{ off, n int64 }{s.size, int64(len(data))})
	s.size += int64(len(data))
	for _, g := range gvksOf(b) {
		s.gvks[g] = true
	}
	return nil
}

// BenchmarkSpill spills 10,000 bundles with the packed spans and the
// string arena and with the plain index, and reports the bytes each
// keeps besides the file.
func BenchmarkSpill(b *testing.B) {
	bundles := benchBundles()
	b.Run("packed", func(b *testing.B) {
		var kept uint64
		for range b.N {
			sp, err := newSpill(b.TempDir())
			require.NoError(b, err)
			kept = heapGrowth(func() any {
				for _, bd := range bundles {
					require.NoError(b, sp.add(bd))
				}
				require.NoError(b, sp.done())
				return sp
			})
			require.NoError(b, sp.close())
		}
		b.ReportMetric(float64(kept), "kept-B")
	})
	b.Run("plain", func(b *testing.B) {
		var kept uint64
		for range b.N {
			f, err := os.CreateTemp(b.TempDir(), "spill")
			require.NoError(b, err)
			sp := &plainSpill{f: f, w: bufio.NewWriterSize(f, 1<<16), spans: map[string][]struct{ off, n int64 }{}, gvks: map[manifest.GVK]bool{}}
			kept = heapGrowth(func() any {
				for _, bd := range bundles {
					require.NoError(b, sp.add(bd))
				}
				require.NoError(b, sp.w.Flush())
				return sp
			})
			require.NoError(b, f.Close())
		}
		b.ReportMetric(float64(kept), "kept-B")
	})
}

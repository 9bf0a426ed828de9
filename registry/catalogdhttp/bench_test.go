package catalogdhttp_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// benchBundles is the size of the generated catalog the benchmarks serve.
const benchBundles = 20000

// BenchmarkBuild measures a load: encoding the catalog into the served
// file and its index (what start and each reload cost).
func BenchmarkBuild(b *testing.B) {
	dir := catalogtest.Dir(b, catalogtest.WithBundles(benchBundles), catalogtest.WithBundlesPerPackage(12))
	out := b.TempDir()
	for b.Loop() {
		s, err := catalogdhttp.Build(context.Background(), out, catalogdhttp.DirSource(dir))
		require.NoError(b, err)
		b.ReportMetric(float64(s.Size())/1e6, "MB-body")
		s.Close()
	}
}

// BenchmarkFirstByte measures the time to the first byte of /all and of a
// metas query (one package) over loopback TCP, and to the whole body.
func BenchmarkFirstByte(b *testing.B) {
	dir := catalogtest.Dir(b, catalogtest.WithBundles(benchBundles), catalogtest.WithBundlesPerPackage(12))
	s := startServer(b, "c", catalogdhttp.DirSource(dir))
	for _, tc := range []struct{ name, path string }{
		{"all", "/catalogs/c/api/v1/all"},
		{"metas-package", "/catalogs/c/api/v1/metas?package=pkg-0100"},
		{"metas-schema-package", "/catalogs/c/api/v1/metas?schema=olm.package"},
	} {
		for _, whole := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/whole=%v", tc.name, whole), func(b *testing.B) {
				one := make([]byte, 1)
				for b.Loop() {
					resp, err := s.client.Get(s.base + tc.path)
					require.NoError(b, err)
					_, err = io.ReadFull(resp.Body, one)
					require.NoError(b, err)
					if whole {
						_, err = io.Copy(io.Discard, resp.Body)
						require.NoError(b, err)
					}
					resp.Body.Close()
					require.Equal(b, http.StatusOK, resp.StatusCode)
				}
			})
		}
	}
}

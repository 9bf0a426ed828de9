package catalogdhttp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

func TestDefaultName(t *testing.T) {
	for _, tc := range []struct {
		ref   string
		image bool
		want  string
	}{
		{"/work/catalogs/opm-migrate", false, "opm-migrate"},
		{"/work/catalogs/opm-migrate/", false, "opm-migrate"},
		{"/data/index.db", false, "index-db"},
		{"/data/My_Catalog", false, "my-catalog"},
		{"/data/--x--", false, "x"},
		{"/data/___", false, "catalog"},
		{"/", false, "catalog"},
		{"/data/a123456789b123456789c123456789d123456789e123456789f123456789g123456789", false, "a123456789b123456789c123456789d123456789e123456789f123456789g12"},
		{"host:5000/org/operator-index:v4.16", true, "operator-index"},
		{"host:5000/org/operator-index@sha256:0123", true, "operator-index"},
		{"host:5000/org/operator-index:v1@sha256:0123", true, "operator-index"},
		{"operator-index", true, "operator-index"},
		{"host:5000/Org/Red.Hat_Operators", true, "red-hat-operators"},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			got := catalogdhttp.DefaultName(tc.ref, tc.image)
			require.Equal(t, tc.want, got)
			require.NoError(t, catalogdhttp.ValidName(got))
		})
	}
}

package action_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/internal/testutil/kubetest"
	"github.com/operator-catalog/olmcat/unpack"
)

func TestMain(m *testing.M) { os.Exit(kubetest.Main(m)) }

// TestBundleUnpack on a real apiserver (no Job controller: the test
// writes the Job's outcome): without an image per role nothing is
// created (a usage error); a launch is pending until its Job ends; a
// failed Job is a failed lookup, not an error; cleanup with a catalog
// source is refused.
func TestBundleUnpack(t *testing.T) {
	c := kubetest.Get(t)
	ns := c.Namespace(t)
	clients, err := unpack.NewClients(c.AdminConfig())
	require.NoError(t, err)
	ctx := context.Background()
	image := "example/action-bundle:v1"
	u := action.BundleUnpack{Clients: clients, Image: image, Namespace: ns}

	_, err = u.Run(ctx)
	requireActionError(t, err, action.KindUsage, "")
	var missing *unpack.MissingImageError
	require.ErrorAs(t, err, &missing)

	u.UtilImage, u.OpmImage = "example/olmcat:v1", "example/olmcat:v1"
	for _, tc := range []struct {
		name   string
		before func()
		check  func(t *testing.T, l *unpack.BundleLookup)
	}{
		{"pending", func() {}, func(t *testing.T, l *unpack.BundleLookup) {
			assert.True(t, l.Pending())
			assert.Equal(t, unpack.Name(image), l.Name)
		}},
		{"failed", func() { kubetest.FailJob(t, c.Admin(t), ns, unpack.Name(image), "DeadlineExceeded", "too slow") },
			func(t *testing.T, l *unpack.BundleLookup) {
				require.NotNil(t, l.Failed())
				assert.Equal(t, "DeadlineExceeded", l.Failed().Reason)
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.before()
			res, err := u.Run(ctx)
			require.NoError(t, err)
			tc.check(t, res.Lookup)
			assert.False(t, res.CleanedUp)
		})
	}

	u.Cleanup, u.CatalogSource = true, &unpack.CatalogSourceRef{Namespace: ns, Name: "community"}
	_, err = u.Run(ctx)
	requireActionError(t, err, action.KindUsage, "BundleUnpack.Cleanup")
}

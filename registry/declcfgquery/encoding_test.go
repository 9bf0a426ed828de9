package declcfgquery

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/internal/testutil/catalogtest"
	"github.com/operator-catalog/olmcat/registry/api"
)

// encodingCatalog has what the index encodes specially: an olm.package
// value that is not the bundle's own (a release), images by tag, by
// digest and behind a registry port (the fixtures have bundles without
// one), properties shared by some
// bundles of the package and not others, and skips that are and are not
// the bundle's replaces.
const encodingCatalog = `{"schema": "olm.package", "name": "etcd", "defaultChannel": "stable"}
{"schema": "olm.channel", "name": "stable", "package": "etcd", "entries": [
  {"name": "etcd.v1.0.0"},
  {"name": "etcd-v1.1.0-2", "replaces": "etcd.v1.0.0", "skips": ["etcd.v1.0.0", "etcd.v1.0.1"]},
  {"name": "etcd.v1.2.0", "replaces": "etcd-v1.1.0-2", "skipRange": "<1.2.0"}]}
{"schema": "olm.channel", "name": "fast", "package": "etcd", "entries": [{"name": "etcd.v1.2.0"}]}
{"schema": "olm.bundle", "name": "etcd.v1.0.0", "package": "etcd", "image": "example.com/org/etcd-bundle:v1.0.0", "properties": [
  {"type": "olm.package", "value": {"packageName": "etcd", "version": "1.0.0"}},
  {"type": "olm.gvk", "value": {"group": "etcd.io", "kind": "EtcdCluster", "version": "v1"}},
  {"type": "olm.gvk.required", "value": {"group": "etcd.io", "kind": "EtcdBackup", "version": "v1"}}]}
{"schema": "olm.bundle", "name": "etcd-v1.1.0-2", "package": "etcd", "image": "localhost:5000/etcd-bundle@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "properties": [
  {"type": "olm.package", "value": {"packageName": "etcd", "version": "1.1.0", "release": "2"}},
  {"type": "olm.gvk", "value": {"group": "etcd.io", "kind": "EtcdCluster", "version": "v1"}},
  {"type": "olm.package.required", "value": {"packageName": "vault", "versionRange": ">=1.0.0"}},
  {"type": "custom.label", "value": {"b": 2, "a": "<x>"}}]}
{"schema": "olm.bundle", "name": "etcd.v1.2.0", "package": "etcd", "image": "localhost:5000/etcd-bundle:v1.2.0", "properties": [
  {"type": "olm.package", "value": {"packageName": "etcd", "version": "1.2.0"}},
  {"type": "olm.gvk", "value": {"group": "etcd.io", "kind": "EtcdCluster", "version": "v1"}},
  {"type": "olm.gvk.required", "value": {"group": "etcd.io", "kind": "EtcdBackup", "version": "v1"}}]}
`

// TestIndexDecodesWhatConversionMade: every ListBundles message of a
// loaded Querier, decoded from the string table and number records,
// equals the message the conversion made from the model (manifests
// aside), for the catalog above, a generated one and the fixtures.
func TestIndexDecodesWhatConversionMade(t *testing.T) {
	handmade := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(handmade, "catalog.json"), []byte(encodingCatalog), 0o644))
	generated := catalogtest.Dir(t, catalogtest.WithBundles(40), catalogtest.WithBundlesPerPackage(12))
	ctx := context.Background()
	for _, dir := range append([]string{handmade, generated}, leanDirs(t)...) {
		t.Run(dir, func(t *testing.T) {
			m, err := loadModel(ctx, dir)
			require.NoError(t, err)
			want := map[[3]string]*api.Bundle{}
			for _, name := range sortedNames(m.Packages) {
				_, bundles, err := convertPackage(m.Packages[name], false)
				require.NoError(t, err)
				for _, b := range bundles {
					want[[3]string{b.PackageName, b.ChannelName, b.CsvName}] = b
				}
			}
			q, err := Load(ctx, dir)
			require.NoError(t, err)
			got := CollectBundles(t, q)
			require.Len(t, got, len(want))
			for _, b := range got {
				b.CsvJson, b.Object = "", nil // the conversion above made none
				w := want[[3]string{b.PackageName, b.ChannelName, b.CsvName}]
				require.True(t, proto.Equal(w, b), "%s/%s/%s:\n got %v\nwant %v", b.PackageName, b.ChannelName, b.CsvName, b, w)
			}
		})
	}
}

package declcfg

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithPackages(t *testing.T) {
	root := "../fixtures/legacy/small-fbb-deprecated/opm-migrate"
	all, err := LoadDir(context.Background(), root)
	require.NoError(t, err)
	foo, err := LoadDir(context.Background(), root, WithPackages("foo"))
	require.NoError(t, err)
	want := *all
	want.keepPackages(map[string]bool{"foo": true})
	assert.Equal(t, &want, foo)
	require.Len(t, foo.Packages, 1)
	assert.NotEmpty(t, foo.Bundles)

	// A name spelled with an escape is still found: such files are decoded.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"),
		[]byte(`{"schema":"olm.package","name":"\u0062ar","defaultChannel":"x"}`+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.yaml"),
		[]byte("schema: olm.package\nname: baz\ndefaultChannel: x\n"), 0o644))
	got, err := LoadDir(context.Background(), dir, WithPackages("bar"))
	require.NoError(t, err)
	require.Len(t, got.Packages, 1)
	assert.Equal(t, "bar", got.Packages[0].Name)
	assert.True(t, mayHold([]byte(`name: "ba\x72"`), map[string]bool{"bar": true}))
	assert.False(t, mayHold([]byte(`{"name":"baz"}`), map[string]bool{"bar": true}))
}

package input

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadReferenceOneRule: the rule every command reads an argument by.
func TestReadReferenceOneRule(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		arg         string
		image       bool
		layout, ref string
		archive     bool
		dirName     string
	}{
		{arg: "index:v1"},
		{arg: dir},
		{arg: "registry.example.com/ns/index:v4.14", image: true, dirName: "index-v4.14"},
		{arg: "docker://registry.example.com/ns/index:v1", image: true, dirName: "index-v1"},
		{arg: "docker://index:v1", image: true, dirName: "index-v1"},
		{arg: "oci:./out", image: true, layout: "./out", dirName: "out-catalog"},
		{arg: "oci:./out:registry.example.com/ns/cat:v2", image: true, layout: "./out", ref: "registry.example.com/ns/cat:v2", dirName: "out-v2"},
		{arg: "oci-archive:cat.tar:v3", image: true, layout: "cat.tar", ref: "v3", archive: true, dirName: "cat-v3"},
	} {
		t.Run(tc.arg, func(t *testing.T) {
			r, _, err := readReference(tc.arg)
			require.NoError(t, err)
			assert.Equal(t, tc.image, r.isImage())
			assert.Equal(t, tc.layout, r.layout.Path)
			assert.Equal(t, tc.ref, r.layout.Ref)
			assert.Equal(t, tc.archive, r.layout.Archive)
			if tc.image {
				assert.Equal(t, tc.dirName, r.dirName())
			}
		})
	}
	_, _, err := readReference("oci:")
	require.ErrorContains(t, err, "want oci:DIR")
}

// TestReadReferencePathOrImage: an existing path wins, with a note when
// it also reads as an image reference; a missing one is an image only
// when it names a registry.
func TestReadReferencePathOrImage(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.MkdirAll("localhost/cat", 0o755))
	require.NoError(t, os.WriteFile("index.db", nil, 0o644))
	for _, tc := range []struct {
		arg   string
		image bool
		note  bool
	}{
		{"index.db", false, false},
		{"catalog", false, false}, // missing, unqualified: a path
		{"foo:v1", false, false},  // unqualified names never pull from a default registry
		{"host.test/ns/cat:v1", true, false},
		{"localhost:5000/cat", true, false},
		{"localhost/cat", false, true}, // exists: the path wins, with a note
		{"docker://localhost/cat", true, false},
		{"./host.test/cat", false, false},
	} {
		r, note, err := readReference(tc.arg)
		require.NoError(t, err, "%s", tc.arg)
		assert.Equal(t, tc.image, r.isImage(), "%s: image", tc.arg)
		assert.Equal(t, tc.note, note != "", "%s: note %q", tc.arg, note)
	}
}

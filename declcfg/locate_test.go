package declcfg

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FilePlaces finds the blobs DecodeStream decodes, at the same positions,
// each on the line it starts on: YAML documents after comments, empty
// documents and separators with comments; JSON objects over many lines.
func TestFilePlaces(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.yaml": "# leading comment\n---\nschema: olm.package\nname: a\n---\n---\n\n# about the channel\nschema: olm.channel\npackage: a\nname: stable\n--- # trailing comment\nschema: olm.bundle\npackage: a\nname: a.v1\n",
		"b.json": "{\"schema\": \"olm.package\", \"name\": \"b\"}\n\n{\n  \"schema\": \"olm.channel\",\n  \"package\": \"b\",\n  \"name\": \"stable\"\n}\n{\"schema\":\"olm.bundle\",\"package\":\"b\",\"name\":\"b.v1\"}",
	}
	wantLines := map[string][]int{"a.yaml": {3, 9, 13}, "b.json": {1, 3, 8}}
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	for name, body := range files {
		places, err := FilePlaces(dir, name)
		require.NoError(t, err)
		var lines []int
		err = DecodeStream(strings.NewReader(body), func(blob json.RawMessage, i int) error {
			m, err := metaKeys(blob)
			require.NoError(t, err)
			require.Less(t, i, len(places), name)
			assert.Equal(t, Place{Meta: m, File: name, Index: i, Line: places[i].Line}, places[i])
			lines = append(lines, places[i].Line)
			return nil
		})
		require.NoError(t, err)
		assert.Len(t, places, len(lines), name)
		assert.Equal(t, wantLines[name], lines, name)
	}

	loc, err := NewLocator(context.Background(), dir)
	require.NoError(t, err)
	got, err := loc.Package("b")
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, "stable", got[1].Name)
	assert.Equal(t, 3, got[1].Line)
	none, err := loc.Package("no-such-package")
	require.NoError(t, err)
	assert.Empty(t, none)
}

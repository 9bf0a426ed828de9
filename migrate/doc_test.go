package migrate

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/legacy"
)

// TestMigrationGuideCoversEveryMessage keeps MIGRATION.md's troubleshooting
// tables complete: every kind the tool can print has a row, with a hint.
func TestMigrationGuideCoversEveryMessage(t *testing.T) {
	data, err := os.ReadFile("../MIGRATION.md")
	require.NoError(t, err)
	guide := string(data)
	for _, k := range Kinds() {
		assert.Contains(t, guide, "| `"+string(k)+"` |", "MIGRATION.md has no row for %s", k)
		assert.NotEmpty(t, Hint(k), k)
	}
	// Every repair kind the reader declares, read from its source so that
	// a new kind cannot be added without a troubleshooting row.
	src, err := os.ReadFile("../legacy/types.go")
	require.NoError(t, err)
	kinds := regexp.MustCompile(`RepairKind = "([^"]+)"`).FindAllStringSubmatch(string(src), -1)
	require.NotEmpty(t, kinds)
	for _, m := range kinds {
		assert.True(t, strings.Contains(guide, "| `"+m[1]+"` |"), "MIGRATION.md has no row for repair %s", m[1])
	}
	assert.Contains(t, guide, "| `"+string(legacy.RepairStranded)+"` |")
}

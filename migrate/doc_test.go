package migrate

import (
	"os"
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
	for _, k := range []legacy.RepairKind{
		legacy.RepairNullNameRows, legacy.RepairNullVersion, legacy.RepairCorruptDependencies,
		legacy.RepairMissingManifests, legacy.RepairMissingDefaultChannel, legacy.RepairNullPropertyPath,
		legacy.RepairDerived, legacy.RepairStranded, legacy.RepairDuplicateRows,
	} {
		assert.True(t, strings.Contains(guide, "| `"+string(k)+"` |"), "MIGRATION.md has no row for repair %s", k)
	}
}

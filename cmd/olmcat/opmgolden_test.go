package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opmOutputsDir holds what opm v1.73.0 printed for each case of its
// cases.txt (scripts/record-opm-outputs.sh).
const opmOutputsDir = "../../fixtures/opmcli"

// opmCase is one line of cases.txt.
type opmCase struct {
	name   string
	args   []string
	stderr string
}

func readOPMCases(t *testing.T) []opmCase {
	t.Helper()
	f, err := os.Open(filepath.Join(opmOutputsDir, "cases.txt"))
	require.NoError(t, err)
	defer f.Close()
	var cases []opmCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		c := opmCase{name: cols[0]}
		for _, a := range strings.Fields(cols[1]) {
			c.args = append(c.args, strings.Replace(a, "@", "../..", 1))
		}
		if len(cols) > 2 {
			c.stderr = cols[2]
		}
		cases = append(cases, c)
	}
	require.NoError(t, sc.Err())
	require.NotEmpty(t, cases)
	return cases
}

// TestOPMGoldens runs every recorded opm case with olmcat: stdout is
// byte-equal to opm's, the exit status is 0 where opm's was and non-zero
// where opm failed (1 for invalid input, 2 for usage, as everywhere in
// olmcat; opm exits 1 for both), and both error messages hold the same
// text.
func TestOPMGoldens(t *testing.T) {
	t.Setenv(noDeprecationWarningEnv, "1")
	for _, c := range readOPMCases(t) {
		t.Run(c.name, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(opmOutputsDir, c.name+".stdout"))
			require.NoError(t, err)
			rc, err := os.ReadFile(filepath.Join(opmOutputsDir, c.name+".exit"))
			require.NoError(t, err)
			stdout, stderr, code := runCLI(t, c.args...)
			if strings.TrimSpace(string(rc)) == "0" {
				require.Equal(t, 0, code, stderr)
			} else {
				require.NotEqual(t, 0, code, "opm failed here")
				opmStderr, err := os.ReadFile(filepath.Join(opmOutputsDir, c.name+".stderr"))
				require.NoError(t, err)
				require.Contains(t, strings.ReplaceAll(string(opmStderr), `\"`, `"`), c.stderr, "the text is opm's")
				assert.Contains(t, stderr, c.stderr)
			}
			assert.Equal(t, string(want), stdout)
			if len(c.args) == 3 && c.args[0] == "alpha" && c.args[1] == "render-graph" {
				// olmcat graph -o mermaid prints the same text.
				graphOut, stderr, code := runCLI(t, "graph", c.args[2], "-o", "mermaid")
				require.Equal(t, 0, code, stderr)
				assert.Equal(t, string(want), graphOut, "olmcat graph -o mermaid")
			}
		})
	}
}

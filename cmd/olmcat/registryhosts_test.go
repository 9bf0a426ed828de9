package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// publicRegistryHosts matches the hosts of public image registries. The
// project names none: an example image reference uses example.com, and
// a test pulls from a loopback registry it started.
var publicRegistryHosts = regexp.MustCompile(`\b(quay\.io|docker\.io|index\.docker\.io|registry-1\.docker\.io|gcr\.io|[a-z0-9-]+\.gcr\.io|ghcr\.io|registry\.k8s\.io|public\.ecr\.aws|mcr\.microsoft\.com|registry\.redhat\.io|registry\.access\.redhat\.com|registry\.connect\.redhat\.com|registry\.ci\.openshift\.org)\b`)

// recordedData are the files outside fixtures/ and testdata/ that may
// name a registry host because they assert what a real index holds.
var recordedData = []string{
	"legacy/db_test.go",                    // rows of real indexes under fixtures/legacy
	"registry/legacyquery/querier_test.go", // the same rows, as served
	"cmd/olmcat/registryhosts_test.go",     // this test's own pattern
}

// TestNamesNoRegistryHost: no code, script or document names a public
// registry host. Real data keeps the hosts it came with: fixtures/ (real
// indexes, opm's recorded outputs and help), testdata/ (recorded
// upstream examples and OLM objects) and the assertions on them.
func TestNamesNoRegistryHost(t *testing.T) {
	root := moduleRoot(t)
	var found []string
	err := walkOwnFiles(root, func(path, rel string) error {
		if !isTextSource(filepath.Base(path)) || slices.Contains(recordedData, rel) {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(src), "\n") {
			if m := publicRegistryHosts.FindString(line); m != "" {
				found = append(found, rel+":"+strconv.Itoa(i+1)+": "+m)
			}
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, found, "public registry hosts named outside recorded data")
}

// isTextSource says whether a file is source, a script or a document.
func isTextSource(name string) bool {
	switch filepath.Ext(name) {
	case ".go", ".md", ".sh", ".yaml", ".yml", ".json", ".proto", ".html", ".tmpl", ".txt":
		return true
	}
	return name == "Makefile" || strings.HasPrefix(name, "Dockerfile")
}

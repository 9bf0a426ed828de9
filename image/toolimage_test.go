package image

import (
	"os"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/stretchr/testify/require"
)

// TestBuildToolFailureLeavesNothing: a tool image build that fails (a
// platform without a binary, a binary that is not one) removes its
// temporary directory.
func TestBuildToolFailureLeavesNothing(t *testing.T) {
	notELF := t.TempDir() + "/olmcat"
	require.NoError(t, os.WriteFile(notELF, []byte("#!/bin/sh\n"), 0o755))
	s390x := v1.Platform{OS: "linux", Architecture: "s390x"}
	for _, tc := range []struct {
		name string
		opts []BuildOption
		want string
	}{
		{"no binary", []BuildOption{WithPlatforms(s390x)}, "no olmcat binary for linux/s390x"},
		{"not a binary", []BuildOption{WithPlatforms(s390x), WithBinary(s390x, notELF)}, "not an ELF executable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			b, err := BuildTool(append(tc.opts, WithBuildTempDir(tmp))...)
			require.ErrorContains(t, err, tc.want)
			require.Nil(t, b)
			left, err := os.ReadDir(tmp)
			require.NoError(t, err)
			require.Empty(t, left, "temporary files left behind")
		})
	}
}

package image

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{
		"4096": 4096, "512MiB": 512 << 20, " 1 GiB ": 1 << 30, "3KiB": 3 << 10, "2TiB": 2 << 40,
	} {
		got, err := ParseSize(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "0", "-1", "1.5GiB", "1GB", "MiB", "9223372036854775807KiB"} {
		_, err := ParseSize(bad)
		assert.ErrorContains(t, err, "want a positive number of bytes with an optional KiB, MiB, GiB or TiB unit", bad)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		1000: "1000", 1 << 10: "1KiB", 3 << 20: "3MiB", 1<<30 + 1: "1073741825", 5 << 40: "5TiB", math.MaxInt64: "9223372036854775807",
	} {
		assert.Equal(t, want, FormatSize(n))
		if back, err := ParseSize(want); assert.NoError(t, err) {
			assert.Equal(t, n, back, "round trip of %s", want)
		}
	}
}

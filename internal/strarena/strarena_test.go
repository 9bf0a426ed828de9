package strarena

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
)

func TestCloneCopiesIntoSharedBlocks(t *testing.T) {
	var a Arena
	tests := []struct {
		name, in string
		shared   bool
	}{
		{name: "empty", in: ""},
		{name: "small", in: "stable", shared: true},
		{name: "large", in: strings.Repeat("x", blockSize/16+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.in)
			got := a.Clone(string(src))
			assert.Equal(t, tt.in, got)
			if tt.shared {
				base := unsafe.Pointer(unsafe.SliceData(a.block))
				end := unsafe.Add(base, cap(a.block))
				p := unsafe.Pointer(unsafe.StringData(got))
				assert.True(t, uintptr(p) >= uintptr(base) && uintptr(p) < uintptr(end), "not in the current block")
			}
		})
	}
}

// Many small strings take about their bytes, not an allocation each.
func TestSmallStringsShareBlocks(t *testing.T) {
	var a Arena
	const n, size = 20_000, 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	kept := make([]string, n)
	for i := range kept {
		kept[i] = a.Clone(strings.Repeat("a", size))
	}
	runtime.ReadMemStats(&after)
	assert.Less(t, after.Mallocs-before.Mallocs, uint64(n+n/100), "one allocation per string for the garbage source only")
	for _, s := range kept {
		assert.Len(t, s, size)
	}
	// The copies survive the source's garbage being collected.
	runtime.GC()
	assert.Equal(t, strings.Repeat("a", size), kept[n-1])
}

package jsonscan

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"
)

// TestFramerOffset: after each object Next returns, Offset is where that
// object ends in the input, whatever the reads and the buffer growth.
func TestFramerOffset(t *testing.T) {
	big := `{"big":"` + strings.Repeat("x", 100_000) + `"}`
	for name, data := range map[string]string{
		"compact":         `{"a":1}{"b":2}{}`,
		"spaced":          " \n{\"a\":\"}\"}\n\n\t{\"b\":[1,{\"c\":2}]}  {}\n",
		"across a refill": `{"a":1}` + "\n" + big + "\n" + `{"c":3}` + "\n" + big,
	} {
		for rname, wrap := range map[string]func(io.Reader) io.Reader{
			"whole":       func(r io.Reader) io.Reader { return r },
			"byte a read": iotest.OneByteReader,
		} {
			t.Run(name+"/"+rname, func(t *testing.T) {
				f := NewFramer(wrap(bytes.NewReader([]byte(data))))
				n := 0
				for {
					obj, ok, err := f.Next()
					require.NoError(t, err)
					if !ok {
						break
					}
					end := int(f.Offset())
					require.Equal(t, data[end-len(obj):end], string(obj), "object %d", n)
					n++
				}
				require.True(t, f.Done())
				require.Equal(t, int64(len(data)), f.Offset(), "all input consumed")
				require.Positive(t, n)
			})
		}
	}
}

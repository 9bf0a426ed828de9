package catalogdhttp

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEncodeAll: blobs encoded ahead come out in the source's order,
// whatever the workers; the first failure stops the source and names its
// blob; a write error stops it too.
func TestEncodeAll(t *testing.T) {
	src := func(bad int) Source {
		return func(ctx context.Context, emit Emit) error {
			for i := range 1000 {
				blob := fmt.Sprintf(`{"schema":"s","n":%d}`, i)
				if i == bad {
					blob = `{"schema":1}`
				}
				if err := emit([]byte(blob), "f.json", i); err != nil {
					return err
				}
			}
			return nil
		}
	}
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprint(workers), func(t *testing.T) {
			var got []string
			require.NoError(t, encodeAll(context.Background(), src(-1), workers, func(line []byte, k Keys) error {
				require.Equal(t, "s", k.Schema)
				got = append(got, string(line))
				return nil
			}))
			require.Len(t, got, 1000)
			for i, line := range got {
				require.Equal(t, fmt.Sprintf(`{"n":%d,"schema":"s"}`+"\n", i), line)
			}

			n := 0
			err := encodeAll(context.Background(), src(500), workers, func([]byte, Keys) error { n++; return nil })
			require.EqualError(t, err, `load f.json: blob #500: key "schema": must be a string, got float64`)
			require.Equal(t, 500, n, "the blobs before the bad one are written, none after")

			stop := errors.New("disk full")
			n = 0
			err = encodeAll(context.Background(), src(-1), workers, func([]byte, Keys) error {
				if n++; n == 10 {
					return stop
				}
				return nil
			})
			require.ErrorIs(t, err, stop)
			require.Equal(t, 10, n)
		})
	}
}

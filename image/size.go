package image

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// The binary units a size (Limits' byte counts) is written in, largest
// first.
var sizeUnits = []struct {
	name string
	n    int64
}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// FormatSize writes n bytes in the largest binary unit that divides it
// ("2GiB", "1000"), as ParseSize reads it back.
func FormatSize(n int64) string {
	for _, u := range sizeUnits {
		if n >= u.n && n%u.n == 0 {
			return strconv.FormatInt(n/u.n, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// ParseSize reads a positive number of bytes with an optional KiB, MiB,
// GiB or TiB unit ("512MiB", "1 GiB", "4096").
func ParseSize(s string) (int64, error) {
	num, mult := strings.TrimSpace(s), int64(1)
	for _, u := range sizeUnits {
		if rest, ok := strings.CutSuffix(num, u.name); ok {
			num, mult = strings.TrimSpace(rest), u.n
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q: want a positive number of bytes with an optional KiB, MiB, GiB or TiB unit", s)
	}
	return n * mult, nil
}

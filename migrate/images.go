package migrate

import (
	"github.com/distribution/reference"
)

// validateImageRef checks that s is a pull spec a client could pull.
func validateImageRef(s string) error {
	_, err := reference.ParseNormalizedNamed(s)
	return err
}

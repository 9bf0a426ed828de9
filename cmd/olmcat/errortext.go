package main

import (
	"errors"
	"strings"

	"github.com/operator-catalog/olmcat/internal/pathcheck"
)

// errorText is err's message as the CLI prints it: the hints of
// unservable content name the flags that resolve them (problemsText, per
// build), and a refused overwrite says which flag replaces the output.
func errorText(err error) string {
	msg := problemsText(err)
	// The error that matches pathcheck.ErrExists itself (its wrappers
	// match through it): the hint goes right after its message, unless
	// the CLI made it and named the flag already.
	var exists interface {
		error
		Is(error) bool
	}
	if errors.As(err, &exists) && exists.Is(pathcheck.ErrExists) && !strings.Contains(exists.Error(), "--force") {
		if i := strings.LastIndex(msg, exists.Error()); i >= 0 {
			at := i + len(exists.Error())
			msg = msg[:at] + " (use --force to replace it)" + msg[at:]
		}
	}
	return msg
}

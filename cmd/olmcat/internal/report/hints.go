package report

import (
	"errors"
	"slices"
	"strings"

	"github.com/operator-catalog/olmcat/migrate"
)

// The libraries name no flag: their typed errors and kinds say what the
// user can do, and here the CLI names its flags for them.

// remedyFlags names each migration remedy as olmcat migrate's flag.
var remedyFlags = map[migrate.Remedy]string{
	migrate.RemedyKeepDeprecated:           "--keep-deprecated",
	migrate.RemedyDropInvalidBundles:       "--drop-invalid-bundles",
	migrate.RemedyDropInvalidRelatedImages: "--drop-invalid-related-images",
}

// MigrationHint returns what the user can do about a finding of kind k,
// naming the flag that resolves it.
func MigrationHint(k migrate.Kind) string {
	return migrate.HintWith(k, func(r migrate.Remedy) string { return "pass " + remedyFlags[r] })
}

// NameRemedies rewrites the hints of rep's findings (rep may be nil) and
// of a *migrate.ProblemsError in err to name the CLI's flags. Call it on
// what migrate returned, before err is wrapped: a wrapping message is
// made when the wrap is.
func NameRemedies(rep *migrate.Report, err error) {
	name := func(fs []migrate.Finding) {
		for i := range fs {
			if fs[i].Hint != "" {
				fs[i].Hint = MigrationHint(fs[i].Kind)
			}
		}
	}
	if rep != nil {
		name(rep.Drops)
		name(rep.Notes)
		name(rep.Problems)
	}
	var pe *migrate.ProblemsError
	if errors.As(err, &pe) {
		name(pe.Problems)
	}
}

// ProblemsText is err's message as the CLI prints it: the hints of
// unservable content (wherever the error was wrapped) name the flags that
// resolve them.
func ProblemsText(err error) string {
	msg := err.Error()
	var pe *migrate.ProblemsError
	if errors.As(err, &pe) {
		named := &migrate.ProblemsError{Problems: slices.Clone(pe.Problems)}
		NameRemedies(nil, named)
		msg = strings.Replace(msg, pe.Error(), named.Error(), 1)
	}
	return msg
}

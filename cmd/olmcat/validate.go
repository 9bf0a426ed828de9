//go:build !slim

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
)

func newValidateCmd(img *imageFlags) *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "validate <dir|image>",
		Short: "Validate a declarative config directory",
		Long: `Validate loads every blob of a declarative config directory and checks it:
packages, channels, bundles and deprecations, and the upgrade graph of every
channel. All problems are reported in one run, each naming its file, blob
position and blob name. Upgrade-graph warnings (edges naming absent
bundles, skipRanges matching nothing) do not fail validation; they are
printed on stderr as each package is checked (-o json: in "warnings"; -o junit:
each package's test suite output; -o github: warning annotations).
Exit status 0 means valid, 1 invalid, 2 bad usage.`,
		Example: `  olmcat validate ./catalog
  olmcat validate ./catalog -o json | jq .problems
  olmcat validate ./catalog -o junit > validate-junit.xml`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runValidate(cmd, args[0], output, img) },
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json, junit (JUnit XML: a test suite per package, a test case per blob schema) or github (GitHub Actions annotations on the catalog's files and lines); junit and github are written package by package as the catalog is checked")
	takesImages(cmd, imageInputFlags)
	return cmd
}

// runValidate validates dir (or an image's declarative configs) and writes
// the outcome in the output format.
func runValidate(cmd *cobra.Command, dir, output string, img *imageFlags) error {
	switch output {
	case "text", "json", "junit", "github":
	default:
		return usageError(fmt.Errorf("unknown output format %q (want text, json, junit or github)", output))
	}
	stdout := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	var rep report.ValidateWriter
	res, err := action.Validate{Env: actionEnv(cmd, img, nil), Catalog: dir, Report: func(image bool) action.ValidateReport {
		rep = validateWriter(cmd, stdout, output, dir, image)
		rep.Start(dir)
		return rep
	}}.Run(cmd.Context())
	if err != nil {
		err = validateError(err)
		abortValidateCI(cmd.OutOrStdout(), output, dir, err)
		return err
	}
	v := report.ValidationOf(res.DirValidation, res.Invalid)
	if err := rep.Finish(dir, v); err != nil {
		return err
	}
	if err := stdout.Flush(); err != nil {
		return err
	}
	if v.Valid {
		return nil
	}
	return &exitError{code: exitInvalid, err: fmt.Errorf("%s: invalid catalog: %d problem(s)", dir, len(v.Problems))}
}

// validateWriter is the report of the output format (image: the catalog
// is an image's, whose files are not the user's to annotate).
func validateWriter(cmd *cobra.Command, stdout io.Writer, output, dir string, image bool) report.ValidateWriter {
	switch output {
	case "json":
		return report.ValidateJSON(stdout)
	case "junit":
		return report.ValidateJUnit(stdout)
	case "github":
		root := dir
		if image {
			root = ""
		}
		return report.ValidateGitHub(stdout, root, dir)
	}
	return report.ValidateText(stdout, cmd.ErrOrStderr())
}

// validateError is the error of a validation that could not start: a
// sqlite index names the migration that converts it.
func validateError(err error) error {
	var se *action.SQLiteError
	if errors.As(err, &se) {
		hint := " (then validate <dir>)"
		if se.Image {
			hint = ""
		}
		err = fmt.Errorf("%w; olmcat migrate %s <dir> converts it%s", err, se.Ref, hint)
	}
	return actionError(err, "validate")
}

// abortValidateCI writes, for -o junit or github, a report that says why
// validate could not start (report.Aborter): CI then reads a well-formed
// report instead of nothing.
func abortValidateCI(w io.Writer, output, dir string, err error) {
	var ci report.ValidateCI
	switch output {
	case "junit":
		ci = report.ValidateJUnit(w)
	case "github":
		ci = report.ValidateGitHub(w, "", dir)
	default:
		return
	}
	_ = ci.Abort("olmcat validate "+dir, errorText(err))
}

//go:build !slim

package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg/model"
	"github.com/operator-catalog/olmcat/input"
	"github.com/spf13/cobra"
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
func runValidate(cmd *cobra.Command, dir, output string, imgFlags *imageFlags) error {
	switch output {
	case "text", "json", "junit", "github":
	default:
		return usageError(fmt.Errorf("unknown output format %q (want text, json, junit or github)", output))
	}
	local, err := validateInput(cmd, dir, imgFlags)
	if err != nil {
		abortValidateCI(cmd.OutOrStdout(), output, dir, err)
		return err
	}
	defer local.Close()
	stdout := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	var rep report.ValidateWriter
	switch output {
	case "json":
		rep = report.ValidateJSON(stdout)
	case "junit":
		rep = report.ValidateJUnit(stdout)
	case "github":
		root := dir
		if local.Image != "" {
			root = "" // an image's files are not the user's to annotate
		}
		rep = report.ValidateGitHub(stdout, root, dir)
	default:
		rep = report.ValidateText(stdout, cmd.ErrOrStderr())
	}
	rep.Start(dir)
	res, err := model.ValidateDir(cmd.Context(), local.Path, model.WithWarnings(rep.Warning), model.WithPackageChecks(rep.Package))
	v := report.ValidationOf(res, err)
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

// validateInput resolves the validate argument: a directory as is, or
// the declarative configs of a catalog image (pulled and extracted; the
// caller closes the input). Images with only a sqlite database or bundle
// images are refused: validate reads declarative configs.
func validateInput(cmd *cobra.Command, arg string, f *imageFlags) (*input.Input, error) {
	in, err := f.resolveInput(cmd.Context(), arg, input.Catalog, "validate", cmd.ErrOrStderr())
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return nil, err
	case errors.Is(err, fs.ErrNotExist):
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("%s does not exist", arg)}
	case err != nil:
		return &input.Input{Ref: arg, Path: arg}, nil // LoadDir reports bad paths
	case in.Image == "" && in.Kind == input.KindSQLite:
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("%s is a legacy sqlite index, not a declarative config; olmcat migrate %s <dir> converts it (then validate <dir>)", arg, arg)}
	case in.Image == "":
		tellFinished(cmd.ErrOrStderr(), in)
		return &input.Input{Ref: arg, Path: arg}, nil // LoadDir reports bad paths
	case in.Kind != input.KindDeclcfg:
		in.Close()
		return nil, &exitError{code: exitInvalid, err: fmt.Errorf("validate %s: the image holds a sqlite database, not declarative configs; olmcat migrate %s <dir> converts it", arg, arg)}
	}
	return in, nil
}

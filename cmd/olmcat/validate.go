package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/registry/source"
	"github.com/spf13/cobra"
)

// validateReport is the -o json result of validate, for machines.
type validateReport struct {
	Dir      string            `json:"dir"`
	Valid    bool              `json:"valid"`
	Packages int               `json:"packages"`
	Channels int               `json:"channels"`
	Bundles  int               `json:"bundles"`
	Problems []declcfg.Problem `json:"problems"`
	// Warnings are upgrade-graph findings that do not fail validation
	// (edges naming absent bundles, skipRanges matching nothing); olmcat
	// graph draws the same ones.
	Warnings []declcfg.Problem `json:"warnings"`
}

func newValidateCmd() *cobra.Command {
	var output string
	var imgFlags *imageFlags
	cmd := &cobra.Command{
		Use:   "validate <dir|image>",
		Short: "Validate a declarative config directory",
		Long: `Validate loads every blob of a declarative config directory and checks it:
packages, channels, bundles and deprecations, and the upgrade graph of every
channel. All problems are reported in one run, each naming its file, blob
position and blob name. Exit status 0 means valid, 1 invalid, 2 bad usage.`,
		Example: `  olmcat validate ./catalog
  olmcat validate ./catalog -o json | jq .problems`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "text" && output != "json" {
				return usageError(fmt.Errorf("unknown output format %q (want text or json)", output))
			}
			dir := args[0]
			local, err := validateInput(cmd, dir, imgFlags)
			if err != nil {
				return err
			}
			if local.unpacked != nil {
				defer local.unpacked.Close()
			}
			rep := validateReport{Dir: dir, Problems: []declcfg.Problem{}, Warnings: []declcfg.Problem{}}
			res, err := declcfg.ValidateDir(cmd.Context(), local.Ref)
			rep.Packages, rep.Channels, rep.Bundles = res.Packages, res.Channels, res.Bundles
			rep.Warnings = append(rep.Warnings, res.Warnings...)
			var ve *declcfg.ValidationError
			switch {
			case err == nil:
				rep.Valid = true
			case errors.As(err, &ve):
				rep.Problems = ve.Problems
			default:
				// The catalog could not be read at all: that is one problem.
				rep.Problems = []declcfg.Problem{{Message: err.Error()}}
			}

			out := cmd.OutOrStdout()
			if output == "json" {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else if rep.Valid {
				for _, p := range rep.Warnings {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+p.String())
				}
				fmt.Fprintf(out, "OK: %s: %d packages, %d channels, %d bundles\n", dir, rep.Packages, rep.Channels, rep.Bundles)
			} else {
				for _, p := range rep.Problems {
					fmt.Fprintln(out, p.String())
				}
			}
			if rep.Valid {
				return nil
			}
			return &exitError{code: exitInvalid, err: fmt.Errorf("%s: invalid catalog: %d problem(s)", dir, len(rep.Problems))}
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text or json")
	imgFlags = addImageFlags(cmd.Flags(), false)
	return cmd
}

// validateInput resolves the validate argument: a directory as is, or
// the declarative configs of a catalog image (pulled and extracted; the
// caller closes unpacked). Images with only a sqlite database or bundle
// images are refused: validate reads declarative configs.
func validateInput(cmd *cobra.Command, arg string, f *imageFlags) (renderInput, error) {
	in, err := source.Detect(arg)
	if err != nil || in.Kind != source.KindImage {
		return renderInput{Input: source.Input{Ref: arg}, name: arg}, nil // LoadDir reports bad paths
	}
	local, u, err := f.localInput(cmd.Context(), in, false, cmd.ErrOrStderr())
	if err != nil {
		return renderInput{}, err
	}
	ri := renderInput{Input: local, name: arg, unpacked: u}
	if err := refuseBundle(u, "validate"); err != nil {
		u.Close()
		return renderInput{}, err
	}
	if local.Kind != source.KindDeclcfg {
		u.Close()
		return renderInput{}, &exitError{code: exitInvalid, err: fmt.Errorf("validate %s: the image holds a sqlite database, not declarative configs; olmcat migrate %s <dir> converts it", arg, arg)}
	}
	return ri, nil
}

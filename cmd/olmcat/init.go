//go:build !slim

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/action"
)

// newInitCmd is opm init: an olm.package blob on stdout.
func newInitCmd() *cobra.Command {
	var channel, iconFile, descFile, output string
	cmd := &cobra.Command{
		Use:   "init <packageName>",
		Short: "Generate an olm.package declarative config blob",
		Long: `Print the olm.package blob of a new package, as opm init does: its
default channel, icon (the media type is detected from the file's content)
and description (a file read verbatim, e.g. the operator's README.md).`,
		Example: `  olmcat init etcd -c stable -d README.md -i icon.svg > catalog/etcd/package.json`,
		Args:    exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if output != "json" && output != "yaml" {
				return usageError(fmt.Errorf("invalid --output value %q, expected (json|yaml)", output))
			}
			res, err := action.Init{Package: args[0], DefaultChannel: channel, IconFile: iconFile,
				DescriptionFile: descFile}.Run(cmd.Context())
			if err != nil {
				return actionError(err, "init")
			}
			return writeInitBlob(cmd.OutOrStdout(), res.Blob, output)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&channel, "default-channel", "c", "", "The channel that subscriptions will default to if unspecified")
	fl.StringVarP(&iconFile, "icon", "i", "", "Path to package's icon")
	fl.StringVarP(&descFile, "description", "d", "", "Path to the operator's README.md (or other documentation)")
	fl.StringVarP(&output, "output", "o", "json", "Output format (json|yaml)")
	return cmd
}

// writeInitBlob writes blob as opm does: JSON indented by four spaces
// without HTML escaping, or a YAML document with sorted keys.
func writeInitBlob(w io.Writer, blob action.PackageBlob, output string) error {
	if output == "yaml" {
		data, err := yaml.Marshal(blob)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, "---\n"+string(data))
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "    ")
	if err := enc.Encode(blob); err != nil {
		return errors.Join(errors.New("write package blob"), err)
	}
	return nil
}

//go:build !slim

package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/operator-catalog/olmcat/declcfg"
)

// initBlob is the olm.package blob opm init prints: defaultChannel is
// always present (opm writes "" when unset), icon and description only
// when given.
type initBlob struct {
	Schema         string        `json:"schema"`
	Name           string        `json:"name"`
	DefaultChannel string        `json:"defaultChannel"`
	Icon           *declcfg.Icon `json:"icon,omitempty"`
	Description    string        `json:"description,omitempty"`
}

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
			blob := initBlob{Schema: declcfg.SchemaPackage, Name: args[0], DefaultChannel: channel}
			if iconFile != "" {
				icon, err := readIcon(iconFile)
				if err != nil {
					return &exitError{code: exitInvalid, err: err}
				}
				blob.Icon = icon
			}
			if descFile != "" {
				data, err := os.ReadFile(descFile)
				if err != nil {
					return &exitError{code: exitInvalid, err: fmt.Errorf("open description file: %w", err)}
				}
				blob.Description = string(data)
			}
			return writeInitBlob(cmd.OutOrStdout(), blob, output)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&channel, "default-channel", "c", "", "The channel that subscriptions will default to if unspecified")
	fl.StringVarP(&iconFile, "icon", "i", "", "Path to package's icon")
	fl.StringVarP(&descFile, "description", "d", "", "Path to the operator's README.md (or other documentation)")
	fl.StringVarP(&output, "output", "o", "json", "Output format (json|yaml)")
	return cmd
}

// readIcon reads an icon file and detects its media type from its
// content; anything but an image is refused as opm refuses it.
func readIcon(path string) (*declcfg.Icon, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("open icon file: %w", err)
	}
	mt := http.DetectContentType(data)
	switch {
	case strings.HasPrefix(mt, "image/"):
	case isSVG(data):
		mt = "image/svg+xml"
	default:
		if strings.HasPrefix(mt, "text/plain") || mt == "application/octet-stream" {
			mt = "" // no known type, as opm reports it
		}
		return nil, fmt.Errorf("icon %s: detected invalid type %q: not an image", path, mt)
	}
	return &declcfg.Icon{Data: data, MediaType: mt}, nil
}

// isSVG reports whether data is an SVG document (an <svg> root after an
// optional XML declaration, comments and a doctype).
func isSVG(data []byte) bool {
	head := data[:min(len(data), 4096)]
	i := bytes.Index(head, []byte("<svg"))
	return i >= 0 && !bytes.Contains(head[:i], []byte("<html"))
}

// writeInitBlob writes blob as opm does: JSON indented by four spaces
// without HTML escaping, or a YAML document with sorted keys.
func writeInitBlob(w io.Writer, blob initBlob, output string) error {
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

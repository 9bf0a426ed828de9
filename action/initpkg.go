package action

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"

	"github.com/operator-catalog/olmcat/declcfg"
)

// Init makes the olm.package blob of a new package, as opm init does.
type Init struct {
	// Package is the package's name, DefaultChannel its default channel
	// ("" for none).
	Package, DefaultChannel string
	// IconFile, if set, is the icon, its media type detected from its
	// content; anything but an image is refused.
	IconFile string
	// DescriptionFile, if set, is the description, read verbatim (the
	// operator's README.md, say).
	DescriptionFile string
}

// PackageBlob is the olm.package blob opm init prints: defaultChannel is
// always present (opm writes "" when unset), icon and description only
// when given.
type PackageBlob struct {
	Schema         string        `json:"schema"`
	Name           string        `json:"name"`
	DefaultChannel string        `json:"defaultChannel"`
	Icon           *declcfg.Icon `json:"icon,omitempty"`
	Description    string        `json:"description,omitempty"`
}

// InitResult is the blob made.
type InitResult struct {
	Blob PackageBlob
}

// Run reads the icon and the description.
func (i Init) Run(context.Context) (InitResult, error) {
	blob := PackageBlob{Schema: declcfg.SchemaPackage, Name: i.Package, DefaultChannel: i.DefaultChannel}
	if i.IconFile != "" {
		icon, err := readIcon(i.IconFile)
		if err != nil {
			return InitResult{}, err
		}
		blob.Icon = icon
	}
	if i.DescriptionFile != "" {
		data, err := os.ReadFile(i.DescriptionFile)
		if err != nil {
			return InitResult{}, fmt.Errorf("open description file: %w", err)
		}
		blob.Description = string(data)
	}
	return InitResult{Blob: blob}, nil
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
// optional XML declaration, comments and a doctype): content sniffing
// takes it for text.
func isSVG(data []byte) bool {
	head := data[:min(len(data), 4096)]
	i := bytes.Index(head, []byte("<svg"))
	return i >= 0 && !bytes.Contains(head[:i], []byte("<html"))
}

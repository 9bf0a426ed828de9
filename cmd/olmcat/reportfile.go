//go:build !slim

package main

import (
	"errors"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/reportfile"
)

// openReportFile opens a report destination (--report, --report-html)
// before any work is done (reportfile.Open), an existing file refused in
// the CLI's words, which name the flag that replaces it.
func openReportFile(path, outDir string, force bool, inputs ...string) (*reportfile.File, error) {
	f, err := reportfile.Open(path, outDir, force, inputs...)
	if errors.Is(err, pathcheck.ErrExists) {
		return nil, pathcheck.Exists("report file %s: exists (pass --force to replace it)", path)
	}
	return f, err
}

// openPage opens the --report-html file, nil without the flag; it may not
// be or lie inside a local side.
func (f *parityFlags) openPage(args []string) (*reportfile.File, error) {
	if f.reportHTML == "" {
		return nil, nil
	}
	var local []string
	for _, ref := range args {
		if in, err := input.Classify(ref); err == nil && in.Kind != input.KindGRPC && in.Kind != input.KindCatalogd {
			local = append(local, ref)
		}
	}
	return openReportFile(f.reportHTML, "", f.force, local...)
}

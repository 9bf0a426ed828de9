//go:build !slim

package main

import (
	"bufio"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/cmd/olmcat/internal/report"
	"github.com/operator-catalog/olmcat/declcfg/v1check"
)

func newV1CheckCmd(img *imageFlags) *cobra.Command {
	var (
		output      string
		failOn      string
		pullBundles bool
	)
	cmd := &cobra.Command{
		Use:   "v1-check <dir|index.db|image|catalogd-url>...",
		Short: "Report, package by package, whether OLM v1 can install a catalog",
		Long: `v1-check answers "can OLM v1 install this?" for every package of the
catalogs, as operator-controller v1.11.0 resolves a ClusterExtension that names
only the package (no version, no channels, the standard feature set): the
bundle it picks (the highest version of all the package's bundles, deprecated
ones last) beside the one OLM v0 installs (the default channel's head), what
refuses the install (dependencies, install modes without AllNamespaces, owned
APIServices, media types, catalogs that do not load, the same package in
several catalogs), and the notes: webhooks (cert-manager needed), upgrade
edges OLM v1 no longer follows, deprecations. Several catalogs are
ClusterCatalogs of equal priority. Catalogs are read one package at a time;
a sqlite index is converted as migrate converts it, and a catalogd server's
catalog (http(s)://host/catalogs/<name>) is read as it serves it.
Exit status 0 when every package installs, 1 when one is blocked (or, with
--fail-on, has a finding of one of the rules named), 2 bad usage.`,
		Example: `  olmcat v1-check ./catalog
  olmcat v1-check index.db -o json | jq '.packages[] | select(.status=="blocked")'
  olmcat v1-check ./catalog -o junit --fail-on dependency,install-mode > v1-junit.xml
  olmcat v1-check http://localhost:8080/catalogs/catalog`,
		Args: minArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runV1Check(cmd, args, output, failOn, pullBundles, img)
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "text", "output format: text, json, junit (a test case per package) or github (GitHub Actions annotations)")
	cmd.Flags().StringVar(&failOn, "fail-on", "", "comma-separated rules whose findings fail a package (default: every blocker); rules: "+v1check.RuleNames())
	cmd.Flags().BoolVar(&pullBundles, "pull-bundles", false, "pull the image of a picked bundle whose CSV the catalog does not carry, to read its install modes and webhooks")
	takesImages(cmd, imageInputFlags)
	return cmd
}

// v1Writers are the output formats.
var v1Writers = map[string]func(io.Writer, report.V1Check) error{
	"text":   report.WriteV1CheckText,
	"json":   report.WriteV1CheckJSON,
	"junit":  report.WriteV1CheckJUnit,
	"github": report.WriteV1CheckGitHub,
}

// runV1Check checks the catalogs and writes the report.
func runV1Check(cmd *cobra.Command, catalogs []string, output, failOn string, pullBundles bool, img *imageFlags) error {
	write, ok := v1Writers[output]
	if !ok {
		return usageError(fmt.Errorf("unknown output format %q (want text, json, junit or github)", output))
	}
	rules, err := v1check.ParseRules(failOn)
	if err != nil {
		return usageError(fmt.Errorf("--fail-on: %w", err))
	}
	res, err := action.V1Check{Env: actionEnv(cmd, img, nil), Legacy: conversionHooks(cmd), Catalogs: catalogs, PullBundles: pullBundles}.Run(cmd.Context())
	if err != nil {
		return actionError(err, "v1-check")
	}
	v := report.V1Check{Catalogs: slices.Clone(catalogs), Reports: res.Reports, FailOn: rules}
	for _, u := range res.Unloadable {
		v.Unloadable = append(v.Unloadable, report.V1Unloadable{Catalog: u.Catalog, Error: errorText(u.Err)})
	}
	stdout := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	if err := write(stdout, v); err != nil {
		return err
	}
	if err := stdout.Flush(); err != nil {
		return err
	}
	if v.Failed() {
		return &exitError{code: exitInvalid, err: fmt.Errorf("v1-check: OLM v1 does not install every package")}
	}
	return nil
}

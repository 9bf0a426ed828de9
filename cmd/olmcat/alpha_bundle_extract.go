package main

import "github.com/spf13/cobra"

// newAlphaBundleExtractCmd is opm alpha bundle extract: olmcat bundle
// extract with opm's default namespace and its --debug flag. OLM's bundle
// unpack Job runs it in its opm image (opm alpha bundle extract -m
// /bundle/ -n NS -c CM -z), so the slim build of olmcat's image has it.
func newAlphaBundleExtractCmd() *cobra.Command {
	cmd := newBundleExtractCmd()
	cmd.Use = "extract -c <configmap>"
	ns := cmd.Flags().Lookup("namespace")
	ns.DefValue = "openshift-operator-lifecycle-manager"
	_ = ns.Value.Set(ns.DefValue)
	cmd.Flags().Bool("debug", false, "enable debug logging (accepted; olmcat logs what it wrote)")
	return cmd
}

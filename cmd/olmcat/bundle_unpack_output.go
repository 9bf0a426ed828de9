//go:build !slim

package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/operator-catalog/olmcat/unpack"
)

// What bundle unpack prints of the unpack (action.BundleUnpack): the
// BundleLookup as JSON, and how to retry a failed one.

// clusterUnpackResult is the -o json result of bundle unpack.
type clusterUnpackResult struct {
	*unpack.BundleLookup
	ConfigMap string `json:"configMap"`
	Bundle    string `json:"bundle,omitempty"`
}

// reportLookup prints the lookup as JSON and fails when it failed.
func reportLookup(w io.Writer, lookup *unpack.BundleLookup) error {
	res := clusterUnpackResult{BundleLookup: lookup, ConfigMap: lookup.Namespace + "/" + lookup.Name}
	if lookup.Manifest != nil {
		res.Bundle = lookup.Manifest.Bundle.Name
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		return err
	}
	if c := lookup.Failed(); c != nil {
		return fmt.Errorf("unpacking %s failed: %s: %s; %s", lookup.Image, c.Reason, c.Message, retryHint(lookup))
	}
	return nil
}

// retryHint says how to unpack again after a failure.
func retryHint(l *unpack.BundleLookup) string {
	job := l.Namespace + "/" + l.Name
	switch {
	case l.ManagedByOLM:
		return fmt.Sprintf("job %s is OLM's catalog operator's, which retries it when the OperatorGroup has the operatorframework.io/bundle-unpack-min-retry-interval annotation; or delete the job and run again", job)
	case l.Failed().Reason == unpack.ReasonInvalidBundle:
		// The Job succeeded: only a new ConfigMap makes a new Job.
		return fmt.Sprintf("to retry once the bundle image is fixed, delete configmap %s (the garbage collector removes the objects it owns) and run again", job)
	}
	return fmt.Sprintf("to retry, run again with --min-retry-interval=1s (a fresh Job replaces one that failed longer ago), or delete job %s and run again", job)
}

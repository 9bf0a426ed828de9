//go:build !slim

package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"
)

// daemonToolAnnotation marks the flags of opm's commands that only chose
// which container tool (docker, podman, buildah) pulled or built images.
// olmcat pulls, unpacks and builds images in-process, so it accepts them
// (opm pipelines keep running unchanged) and says once that they do
// nothing.
const daemonToolAnnotation = "olmcat/daemon-tool"

// addDaemonToolFlag registers one such flag of opm v1.73 (e.g.
// -c/--container-tool, -u/--build-tool, -p/--pull-tool,
// -b/--image-builder) with opm's name, shorthand and default.
func addDaemonToolFlag(fs *pflag.FlagSet, name, shorthand, value, usage string) *string {
	p := fs.StringP(name, shorthand, value, usage+" (accepted for opm compatibility: olmcat needs no container daemon)")
	_ = fs.SetAnnotation(name, daemonToolAnnotation, []string{"true"})
	return p
}

// noteDaemonTools writes one line to w when the command line set any
// daemon-tool flag to a tool (a value other than "none" or ""): the
// value is ignored because olmcat needs no daemon. Defaults never print
// (opm's index prune defaults to podman; nobody asked for it).
func noteDaemonTools(fs *pflag.FlagSet, w io.Writer) {
	var set []string
	fs.Visit(func(f *pflag.Flag) {
		if _, ok := f.Annotations[daemonToolAnnotation]; !ok {
			return
		}
		if v := f.Value.String(); v != "" && v != "none" {
			set = append(set, fmt.Sprintf("--%s=%s", f.Name, v))
		}
	})
	if len(set) > 0 {
		fmt.Fprintf(w, "note: %s ignored: olmcat pulls, unpacks and builds images in-process and needs no container daemon\n", strings.Join(set, ", "))
	}
}

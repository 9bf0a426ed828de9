package main

import (
	"bytes"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNoteDaemonTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"defaults print nothing", nil, ""},
		{"none prints nothing", []string{"-c", "none", "--pull-tool=none"}, ""},
		{"empty prints nothing", []string{"--container-tool="}, ""},
		{"one tool", []string{"-c", "docker"}, "note: --container-tool=docker ignored: olmcat pulls, unpacks and builds images in-process and needs no container daemon\n"},
		{"several tools, one line", []string{"-u", "podman", "--pull-tool", "docker"},
			"note: --build-tool=podman, --pull-tool=docker ignored: olmcat pulls, unpacks and builds images in-process and needs no container daemon\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := pflag.NewFlagSet("x", pflag.ContinueOnError)
			addDaemonToolFlag(fs, "container-tool", "c", "", "tool")
			addDaemonToolFlag(fs, "build-tool", "u", "podman", "tool")
			addDaemonToolFlag(fs, "pull-tool", "p", "none", "tool")
			fs.String("other", "", "not a tool flag")
			require.NoError(t, fs.Parse(append(tc.args, "--other=docker")))
			var out bytes.Buffer
			noteDaemonTools(fs, &out)
			assert.Equal(t, tc.want, out.String())
		})
	}
}

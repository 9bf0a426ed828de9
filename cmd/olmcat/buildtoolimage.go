//go:build !slim

package main

import (
	"fmt"
	"runtime"

	"github.com/operator-catalog/olmcat/action"
	"github.com/spf13/cobra"
)

func newBuildToolImageCmd(img *imageFlags) *cobra.Command {
	f := &buildFlags{noServeCache: true}
	cmd := &cobra.Command{
		Use:   "build-tool-image <image-ref>",
		Short: "Build olmcat's own image (a drop-in opm image) without a container daemon",
		Long: `Build-tool-image makes olmcat's own image and pushes it (or, with
--push=false, writes it as an OCI image layout at --oci-layout): per
--platform the static binary of --binary at /bin/olmcat, hard-linked as
/bin/opm and /bin/grpc_health_probe (olmcat runs as the program its name
says), and a world-writable /tmp. Its config is that of opm's image:
ENTRYPOINT /bin/opm, user 1001, PATH set.

It stands wherever an opm image is named: the FROM of the Dockerfiles
generate dockerfile and index add --generate write, build --base-image,
OLM's --opmImage (extractContent serving, the unpack Job's opm alpha
bundle extract) and bundle unpack --tool-image. Give it the slim build
(make build-images): it has every command those run, without sqlite or a
Kubernetes client library. make image runs this command.

Every time is fixed (SOURCE_DATE_EPOCH, else the Unix epoch): the same
binaries give the same digest.`,
		Example: `  olmcat build-tool-image registry.example.com/ns/olmcat:v1 --platform linux/amd64,linux/arm64 \
      --binary linux/amd64=bin/olmcat-linux-amd64 --binary linux/arm64=bin/olmcat-linux-arm64
  olmcat build-tool-image olmcat:dev --push=false --oci-layout bin/olmcat-image --binary linux/amd64=bin/olmcat-linux-amd64`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			b, err := f.action("", args[0])
			if err != nil {
				return usageError(err)
			}
			b.Env = actionEnv(cmd, f.registry, f.waitLock)
			res, err := action.BuildToolImage{Build: b}.Run(cmd.Context())
			if err != nil {
				return actionError(imageError(err), "build-tool-image")
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "built %s (%s)\n", args[0], f.platforms)
			fmt.Fprintf(cmd.OutOrStdout(), "%s@%s\n", res.Name, res.Digest)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.platforms, "platform", "linux/"+runtime.GOARCH, "comma-separated platforms to build (os/arch[/variant])")
	fl.StringArrayVar(&f.binaries, "binary", nil, "static olmcat binary for a platform, `os/arch=FILE` (repeatable)")
	fl.BoolVar(&f.push, "push", true, "push the image; false writes an OCI layout at --oci-layout")
	fl.StringVar(&f.ociLayout, "oci-layout", "", "with --push=false, the OCI image layout `DIR` to write (must not exist or be empty, unless --force)")
	fl.BoolVar(&f.force, "force", false, "with --oci-layout, replace an existing layout")
	f.waitLock = addWaitLockFlag(fl)
	f.registry = img
	takesImages(cmd, registryFlags)
	return cmd
}

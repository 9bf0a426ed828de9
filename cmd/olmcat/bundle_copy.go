package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/operator-catalog/olmcat/unpack/jobtool"
)

func newBundleCopyCmd() *cobra.Command {
	var from string
	var self, allMetadata bool
	cmd := &cobra.Command{
		Use:   "copy <dest>",
		Short: "Copy a bundle image's manifests and metadata to <dest> (the unpack Job's copier)",
		Long: `Copy runs inside a bundle image, which has no shell: it finds the bundle's
metadata/annotations.yaml under --from (searching the file system when it is
not at metadata/annotations.yaml), and copies the manifests directory the
annotations name to <dest>/manifests and annotations.yaml to
<dest>/metadata, as OLM's cpb does (--all-metadata: every file of the
metadata directory, such as dependencies.yaml). With --self it copies this binary itself to the file
<dest>, which is how the Job's util container hands it to the bundle image.`,
		Example: `  olmcat bundle copy --self /util/olmcat
  /util/olmcat bundle copy /bundle`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if self {
				exe, err := os.Executable()
				if err != nil {
					return fmt.Errorf("bundle copy --self: %w", err)
				}
				return jobtool.CopyFile(exe, args[0], 0o755)
			}
			return jobtool.CopyBundle(from, args[0], allMetadata)
		},
	}
	cmd.Flags().StringVar(&from, "from", "/", "root to find the bundle under")
	cmd.Flags().BoolVar(&allMetadata, "all-metadata", false, "copy every metadata file, not only annotations.yaml")
	cmd.Flags().BoolVar(&self, "self", false, "copy this binary to the file <dest>")
	return cmd
}

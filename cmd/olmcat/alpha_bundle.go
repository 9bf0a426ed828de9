//go:build !slim

package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/action"
	"github.com/operator-catalog/olmcat/bundle"
	"github.com/operator-catalog/olmcat/bundle/annotation"
	"github.com/operator-catalog/olmcat/internal/atomicfile"
)

// newAlphaBundleCmd groups opm's alpha bundle commands.
func newAlphaBundleCmd(img *imageFlags) *cobra.Command {
	cmd := &cobra.Command{Use: "bundle", Short: "Operator bundle commands (opm alpha bundle)"}
	cmd.AddCommand(newAlphaBundleGenerateCmd(), newAlphaBundleBuildCmd(img), newAlphaBundleExtractCmd(), newAlphaBundleUnpackCmd(img), newAlphaBundleValidateCmd(img))
	return cmd
}

// bundleGenFlags are opm alpha bundle generate's flags.
type bundleGenFlags struct {
	dir, pkg, channels, defaultChannel, outputDir, baseImage string
	// note tells what the writes swept of killed runs (set by RunE).
	note func(string)
}

func newAlphaBundleGenerateCmd() *cobra.Command {
	f := &bundleGenFlags{}
	cmd := &cobra.Command{
		Use:   "generate",
		Short: "Generate the metadata/annotations.yaml and bundle.Dockerfile of a bundle directory",
		Long: `Write <parent of --directory>/metadata/annotations.yaml (or, with
--output-dir, copy the manifests to <output-dir>/manifests/ and write
<output-dir>/metadata/annotations.yaml) and ./bundle.Dockerfile, byte for
byte as opm alpha bundle generate writes them. The media type is detected
from the manifests (registry+v1 with a ClusterServiceVersion, helm for a
chart, plain otherwise). --package and --channels are required: olmcat does
not infer them from an appregistry package directory.`,
		Example: `  olmcat alpha bundle generate -d ./etcd/0.9.4/manifests -p etcd -c alpha,stable -e stable`,
		Args:    exactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.dir == "" {
				return usageError(errors.New(`required flag(s) "directory" not set`))
			}
			f.note = sweptNote(cmd.ErrOrStderr())
			return f.generate()
		},
	}
	f.addFlags(cmd.Flags())
	return cmd
}

// addFlags registers the flags generate and build share.
func (f *bundleGenFlags) addFlags(fl *pflag.FlagSet) {
	fl.StringVarP(&f.dir, "directory", "d", "", "The directory where bundle manifests for a specific version are located.")
	fl.StringVarP(&f.pkg, "package", "p", "", "The name of the package that bundle image belongs to")
	fl.StringVarP(&f.channels, "channels", "c", "", "The list of channels that bundle image belongs to")
	fl.StringVarP(&f.defaultChannel, "default", "e", "", "The default channel for the bundle image")
	fl.StringVarP(&f.outputDir, "output-dir", "u", "", "Optional output directory for operator manifests")
	fl.StringVar(&f.baseImage, "base-image", "scratch", "Use a custom image pullspec as the base bundle image")
}

// generate writes annotations.yaml and bundle.Dockerfile.
func (f *bundleGenFlags) generate() error {
	_, _, err := f.write(true)
	return err
}

// write writes <root>/metadata/annotations.yaml and ./bundle.Dockerfile
// (copying the manifests to <output-dir>/manifests first with
// --output-dir) and returns the bundle's manifests and metadata dirs.
// Without overwrite (opm alpha bundle build without --overwrite) an
// existing annotations.yaml must hold every generated annotation and is
// kept, and so is an existing bundle.Dockerfile.
func (f *bundleGenFlags) write(overwrite bool) (manifestsDir, metadataDir string, err error) {
	abs, err := filepath.Abs(f.dir)
	if err != nil {
		return "", "", err
	}
	mediaType, err := bundle.MediaType(os.DirFS(abs), ".")
	if errors.Is(err, bundle.ErrNoManifestFiles) {
		err = errors.New("The directory " + abs + " contains no yaml files") // opm's text
	}
	if err != nil {
		return "", "", &exitError{code: exitInvalid, err: err}
	}
	if f.pkg == "" || f.channels == "" {
		return "", "", usageError(fmt.Errorf("please manually input channels and packageName (--package and --channels) for directory %s", abs))
	}
	manifestsDir, root := abs, filepath.Dir(abs)
	if f.outputDir != "" {
		if root, err = filepath.Abs(f.outputDir); err != nil {
			return "", "", err
		}
		manifestsDir = filepath.Join(root, "manifests")
		if err := copyFiles(abs, manifestsDir, false, f.note); err != nil {
			return "", "", &exitError{code: exitInvalid, err: err}
		}
	}
	ann := map[string]string{annotation.MediaType: mediaType, annotation.Manifests: "manifests/", annotation.Metadata: "metadata/", annotation.Package: f.pkg, annotation.Channels: f.channels}
	if f.defaultChannel != "" {
		ann[annotation.DefaultChannel] = f.defaultChannel
	}
	metadataDir = filepath.Join(root, "metadata")
	if err := os.MkdirAll(metadataDir, 0o755); err != nil {
		return "", "", &exitError{code: exitInvalid, err: err}
	}
	if err := writeAnnotations(filepath.Join(metadataDir, "annotations.yaml"), ann, overwrite, f.note); err != nil {
		return "", "", &exitError{code: exitInvalid, err: err}
	}
	if _, err := os.Stat("bundle.Dockerfile"); err == nil && !overwrite {
		return manifestsDir, metadataDir, nil
	}
	df, err := f.dockerfile(mediaType, manifestsDir, metadataDir)
	if err != nil {
		return "", "", err
	}
	return manifestsDir, metadataDir, writeWhole("bundle.Dockerfile", []byte(df), f.note)
}

// dockerfile is opm's bundle.Dockerfile: COPY sources relative to the
// working directory, the build context.
func (f *bundleGenFlags) dockerfile(mediaType, manifestsDir, metadataDir string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	relManifests, err1 := filepath.Rel(wd, manifestsDir)
	relMetadata, err2 := filepath.Rel(wd, metadataDir)
	if err := errors.Join(err1, err2); err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "FROM %s\n\n", f.baseImage)
	for _, kv := range [][2]string{{annotation.MediaType, mediaType}, {annotation.Manifests, "manifests/"}, {annotation.Metadata, "metadata/"}, {annotation.Package, f.pkg}, {annotation.Channels, f.channels}} {
		fmt.Fprintf(&b, "LABEL %s=%s\n", kv[0], kv[1])
	}
	if f.defaultChannel != "" {
		fmt.Fprintf(&b, "LABEL %s=%s\n\n", annotation.DefaultChannel, f.defaultChannel)
	}
	fmt.Fprintf(&b, "COPY %s /manifests/\nCOPY %s /metadata/\n", relManifests, relMetadata)
	return b.String(), nil
}

// copyFiles copies the regular files of from into to, replacing files
// that already exist there only when overwrite is set.
func copyFiles(from, to string, overwrite bool, note func(string)) error {
	return filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		target := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if _, err := os.Stat(target); err == nil && !overwrite {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return writeWhole(target, data, note)
	})
}

// writeWhole replaces dest with data all at once (opm's generate always
// overwrites these files); note is told the temporary directories of
// killed writes it swept.
func writeWhole(dest string, data []byte, note func(string)) error {
	return atomicfile.Write(dest, true, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}, atomicfile.OnSwept(func(dir string) { note(action.AbandonedNote(dir)) }))
}

// sweptNote prints each sentence on stderr.
func sweptNote(stderr io.Writer) func(string) {
	return func(s string) { fmt.Fprintln(stderr, s) }
}

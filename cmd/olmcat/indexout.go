//go:build !slim

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/atomicfile"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// indexOutFlags are the output flags of opm's index add|rm|prune|
// prune-stranded: --generate writes the catalog to ./database and a
// Dockerfile (where opm wrote ./database/index.db and index.Dockerfile);
// otherwise the catalog is built and pushed to --tag.
type indexOutFlags struct {
	generate    bool
	dockerfile  string
	binaryImage string
	tag         string
	force       bool
	debug       bool
	skipTLS     bool
	waitLock    *waitLockFlag
}

// generatedCatalogDir is where --generate writes the catalog: the place
// of opm's database/ folder, relative to the working directory.
const generatedCatalogDir = "database"

func addIndexOutFlags(fs *pflag.FlagSet) *indexOutFlags {
	f := &indexOutFlags{}
	fs.BoolVar(&f.generate, "generate", false, "if enabled, just creates the catalog directory ./"+generatedCatalogDir+" and the Dockerfile instead of building and pushing the image")
	fs.StringVarP(&f.dockerfile, "out-dockerfile", "d", "", "if generating the dockerfile, this flag is used to (optionally) specify a dockerfile name (default index.Dockerfile)")
	fs.StringVarP(&f.binaryImage, "binary-image", "i", "", "opm image the catalog is served with (FROM of the Dockerfile; for a built image its base: default a self-serving olmcat image)")
	fs.StringVarP(&f.tag, "tag", "t", "", "image the catalog is built and pushed to (required unless --generate)")
	fs.BoolVar(&f.force, "force", false, "replace an existing ./"+generatedCatalogDir+" or Dockerfile with --generate")
	fs.BoolVar(&f.debug, "debug", false, "enable debug logging")
	_ = fs.MarkHidden("debug")
	fs.BoolVar(&f.skipTLS, "skip-tls", false, "skip TLS certificate verification for container image registries while pulling bundles or index")
	_ = fs.MarkDeprecated("skip-tls", "use --use-http and --skip-tls-verify instead")
	f.waitLock = addWaitLockFlag(fs)
	return f
}

// check refuses what cannot work before anything is read.
func (f *indexOutFlags) check(img *imageFlags) error {
	if f.skipTLS {
		if img.useHTTP || img.skipTLSVerify {
			return errors.New("invalid flag combination: cannot use --use-http or --skip-tls-verify with --skip-tls")
		}
		img.useHTTP = true
	}
	if f.generate {
		if f.binaryImage == "" {
			return errors.New("--generate needs --binary-image (-i): the opm image your pipeline serves the catalog with (olmcat names no default image)")
		}
		return nil
	}
	if f.dockerfile != "" {
		return errors.New("--out-dockerfile is only used with --generate (olmcat builds without a Dockerfile)")
	}
	if f.tag == "" {
		return errors.New("--tag is required: olmcat builds the image without a daemon and pushes it (or pass --generate)")
	}
	return nil
}

// dockerfilePath is the Dockerfile --generate writes.
func (f *indexOutFlags) dockerfilePath() string {
	if f.dockerfile != "" {
		return f.dockerfile
	}
	return "index.Dockerfile"
}

// write produces the command's result: fill writes the catalog
// directory it is given (atomically). With --generate that is ./database
// and the Dockerfile follows; otherwise a temporary directory that is
// built and pushed to --tag.
func (f *indexOutFlags) write(cmd *cobra.Command, img *imageFlags, inputs []string, fill func(dir string, force bool) error) error {
	if f.generate {
		lock, err := f.waitLock.lock(cmd, generatedCatalogDir, inputs...)
		if err != nil {
			return err
		}
		defer lock.Release()
		return f.writeGenerated(cmd.ErrOrStderr(), inputs, fill)
	}
	tmp, err := scratchDir(cmd.ErrOrStderr(), "olmcat-index-")
	if err != nil {
		return &exitError{code: exitInvalid, err: err}
	}
	defer tmp.Remove()
	dir := filepath.Join(tmp.Path, "catalog")
	if err := fill(dir, false); err != nil {
		return err
	}
	bf := &buildFlags{platforms: "linux/" + runtime.GOARCH, push: true, baseImage: f.binaryImage, registry: img}
	return runBuild(cmd, dir, f.tag, bf)
}

func (f *indexOutFlags) writeGenerated(stderr io.Writer, inputs []string, fill func(dir string, force bool) error) error {
	df := f.dockerfilePath()
	if err := pathcheck.Separate("catalog directory", generatedCatalogDir, inputs...); err != nil {
		return err
	}
	if err := pathcheck.Separate("Dockerfile", df, inputs...); err != nil {
		return err
	}
	if _, err := os.Stat(df); err == nil && !f.force {
		return pathcheck.Exists("%s exists: pass --force to replace it", df)
	}
	// A device, a fifo or a dangling link is refused now, before the
	// catalog directory is written, not after.
	if _, err := atomicfile.Resolve(df); err != nil {
		return usageError(fmt.Errorf("--out-dockerfile: %w", err))
	}
	text, err := image.Dockerfile(generatedCatalogDir, image.DockerfileOptions{BaseImage: f.binaryImage})
	if err != nil {
		return usageError(err)
	}
	if err := fill(generatedCatalogDir, f.force); err != nil {
		return err
	}
	err = atomicfile.Write(df, true, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}, atomicfile.OnSwept(func(dir string) { fmt.Fprintln(stderr, abandonedNote(dir)) }))
	if err != nil {
		// atomicfile's error names the Dockerfile; the catalog
		// directory was committed before it.
		return &exitError{code: exitInvalid, err: partialWrite{fmt.Errorf("%w (./%s was written)", err, generatedCatalogDir)}}
	}
	return nil
}

// fillFrom is the fill function running op on src; what it finds of
// killed runs for the same output is told on stderr.
func fillFrom(ctx context.Context, stderr io.Writer, src *indexSource, op catalogOp) func(dir string, force bool) error {
	return func(dir string, force bool) error {
		if err := runCatalogOp(ctx, stderr, src, op, dir, force); err != nil {
			var ee *exitError
			if errors.As(err, &ee) || errors.Is(err, pathcheck.ErrOverlap) {
				return err
			}
			return &exitError{code: exitInvalid, err: err}
		}
		return nil
	}
}

// scratchDir is a marked temporary directory prefix* in the temporary
// directory (internal/tempdir), for work that is no output of its own: a
// run killed while it works leaves it for the next run with the same
// prefix to remove, which first removes those and says so on stderr.
func scratchDir(stderr io.Writer, prefix string) (*tempdir.Dir, error) {
	swept, err := tempdir.Sweep(os.TempDir(), prefix)
	for _, dir := range swept {
		fmt.Fprintln(stderr, abandonedNote(dir))
	}
	if err != nil {
		return nil, err
	}
	return tempdir.Create(os.TempDir(), prefix)
}

// abandonedNote is the sentence for a temporary directory a killed run
// left that was removed.
func abandonedNote(dir string) string {
	return fmt.Sprintf("removed abandoned temporary directory %s (left by an earlier run that was killed)", dir)
}

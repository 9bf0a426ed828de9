//go:build !slim

package main

import (
	"context"
	"errors"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/action"
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

// run runs edit on the catalog from (action.IndexEdit) and writes the
// result: with --generate to ./database and the Dockerfile; otherwise
// the catalog is built and pushed to --tag.
func (f *indexOutFlags) run(cmd *cobra.Command, img *imageFlags, from string, edit action.Edit) error {
	e := action.IndexEdit{Env: actionEnv(cmd, img, f.waitLock), Legacy: conversionHooks(cmd), From: from, Edit: edit}
	if f.generate {
		e.Generate = &action.Generate{Dir: generatedCatalogDir, Dockerfile: f.dockerfilePath(), BaseImage: f.binaryImage, Force: f.force}
	} else {
		e.Build = func(_ context.Context, dir string) error {
			bf := &buildFlags{platforms: "linux/" + runtime.GOARCH, push: true, baseImage: f.binaryImage, registry: img}
			return runBuild(cmd, dir, f.tag, bf)
		}
	}
	_, err := e.Run(cmd.Context())
	return actionError(err, "index")
}

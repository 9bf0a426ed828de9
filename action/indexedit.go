package action

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/internal/atomicfile"
	"github.com/operator-catalog/olmcat/internal/pathcheck"
	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// IndexEdit applies an Edit to a catalog as opm v1.73's index add|rm|
// prune|prune-stranded|deprecatetruncate did to a sqlite index, on
// declarative configs: the catalog read (From) is never written; the
// result is generated (a catalog directory and a Dockerfile) or handed
// to Build. Nothing is written unless every package was read, changed
// and validated.
type IndexEdit struct {
	Env
	// Legacy is told of a legacy sqlite index read: before it is read,
	// and the report of its conversion (its repairs, drops and notes).
	Legacy Legacy
	// From is the catalog to start from: a sqlite index or declarative
	// config image, an index.db, a catalog directory, or "" for none.
	From string
	Edit Edit
	// Generate, if set, writes the result as a catalog directory and a
	// Dockerfile (opm's --generate); else Build gets it.
	Generate *Generate
	// Build gets the result in a temporary catalog directory, removed
	// once it returns (to build and push an image of it).
	Build func(ctx context.Context, dir string) error
}

// Generate is where an IndexEdit writes its result: the catalog
// directory Dir (opm's ./database) and a Dockerfile serving it from
// BaseImage. Force replaces an existing Dir or Dockerfile.
type Generate struct {
	Dir        string
	Dockerfile string
	BaseImage  string
	Force      bool
}

// IndexEditResult is what an IndexEdit did (told as it went, through
// the log).
type IndexEditResult struct{}

// Check refuses options that cannot work before anything is read.
func (e IndexEdit) Check() error { return e.Edit.check() }

// Run checks the options, opens From, builds the Edit's operation and
// writes the result.
func (e IndexEdit) Run(ctx context.Context) (IndexEditResult, error) {
	if err := e.Check(); err != nil {
		return IndexEditResult{}, err
	}
	src, err := openIndex(ctx, e.Env, e.Legacy, e.From, false)
	if err != nil {
		return IndexEditResult{}, err
	}
	defer src.Close()
	op, err := e.Edit.op(ctx, e.Env, src)
	if err != nil {
		return IndexEditResult{}, err
	}
	fill := func(dir string, force bool) error {
		return indexop.Run(ctx, src.each, op, dir, declcfg.WithInputs(src.inputs()...), declcfg.WithForce(force),
			declcfg.WithOnAbandonedRemoved(e.log))
	}
	if e.Generate != nil {
		return IndexEditResult{}, e.generate(ctx, src.inputs(), fill)
	}
	tmp, err := tempdir.Scratch("olmcat-index-", func(dir string) { e.log(AbandonedNote(dir)) })
	if err != nil {
		return IndexEditResult{}, err
	}
	defer tmp.Remove()
	dir := filepath.Join(tmp.Path, "catalog")
	if err := fill(dir, false); err != nil {
		return IndexEditResult{}, err
	}
	return IndexEditResult{}, e.Build(ctx, dir)
}

// generate writes the catalog directory with fill, then the Dockerfile,
// once the output's lock is held and both outputs were checked.
func (e IndexEdit) generate(ctx context.Context, inputs []string, fill func(dir string, force bool) error) error {
	g := e.Generate
	release, err := e.lock(ctx, g.Dir, inputs...)
	if err != nil {
		return err
	}
	defer release()
	if err := pathcheck.Separate("catalog directory", g.Dir, inputs...); err != nil {
		return err
	}
	if err := pathcheck.Separate("Dockerfile", g.Dockerfile, inputs...); err != nil {
		return err
	}
	if _, err := os.Stat(g.Dockerfile); err == nil && !g.Force {
		return usagef("Generate.Force", "%s exists", g.Dockerfile)
	}
	// A device, a fifo or a dangling link is refused now, before the
	// catalog directory is written, not after.
	if _, err := atomicfile.Resolve(g.Dockerfile); err != nil {
		return usage("Generate.Dockerfile", err)
	}
	text, err := image.Dockerfile(g.Dir, image.DockerfileOptions{BaseImage: g.BaseImage})
	if err != nil {
		return usage("Generate.BaseImage", err)
	}
	if err := fill(g.Dir, g.Force); err != nil {
		return err
	}
	err = atomicfile.Write(g.Dockerfile, true, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	}, atomicfile.OnSwept(func(dir string) { e.log(AbandonedNote(dir)) }))
	if err != nil {
		// atomicfile's error names the Dockerfile; the catalog
		// directory was committed before it.
		return &Error{Kind: KindPartial, Err: fmt.Errorf("%w (%s was written)", err, shownPath(g.Dir))}
	}
	return nil
}

// shownPath is p as a message shows a path: a relative one from ./.
func shownPath(p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return "./" + p
}

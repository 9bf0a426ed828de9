package action

import (
	"context"
	"errors"

	"github.com/operator-catalog/olmcat/action/serve"
	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/image"
	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
	"github.com/operator-catalog/olmcat/registry/parity"
)

// Parity checks that two catalogs answer the registry gRPC API the same
// way (registry/parity.Check): every api.Registry call of either side's
// contents is made on both and the answers compared, package by package;
// each difference is a loss or a known benign difference between the
// sqlite and the declarative config servers.
type Parity struct {
	Env
	// Left and Right are the sides: each a legacy sqlite index, a
	// declarative config directory, a catalog image (pulled and unpacked
	// for the check) or a live server (grpc://host:port).
	Left, Right string
	// LeftKind and RightKind are the backends of the sides,
	// input.KindSQLite or input.KindDeclcfg. A live server needs one (its
	// backend cannot be detected, and the rules that explain differences
	// apply only between those two); "" detects a local side's.
	LeftKind, RightKind input.Kind
	// Concurrency is how many calls are made at once (0: the default,
	// parity.DefaultConcurrency).
	Concurrency int
	// MaxDiffs is how many differences (losses first) the result keeps;
	// negative keeps them all. The counts cover every one.
	MaxDiffs int
	// Loopback serves the local sides over gRPC on 127.0.0.1 and queries
	// them through the wire (the answers are the same, only slower).
	Loopback bool
	// Locate has the differences located in a side's files: see
	// Located.
	Locate bool
	// ViaGRPC reads the local sides of a blob check (see Run) through
	// the registry gRPC API, as OLM v0 does (parity.GRPCSide), instead
	// of as catalogd would serve their files.
	ViaGRPC bool
	// Reports, if set, gives the reports the check passes its calls and
	// differences to as it runs (parity.Report), once the sides are
	// resolved: at is the catalog they can point into (nil unless
	// Locate, or when no side is a directory given as a path).
	Reports func(at *Located) []parity.Report
	// OnSQLite, if set, is told each side that is a legacy sqlite index:
	// ref as given, path the local file (the CLI warns that the format is
	// deprecated).
	OnSQLite func(ctx context.Context, ref, path string)
}

// Located is the side a check's differences are pointed into: the right
// side when it is a declarative config directory given as a path (what
// a change under review changes), else the left one. Locator finds the
// file and line of each of its blobs.
type Located struct {
	Dir     string
	Locator *declcfg.Locator
}

// ParityResult is a finished check's outcome (Result.OK says whether
// the sides are at parity); the differences the check found are also
// what the Reports got.
type ParityResult struct {
	Result *parity.Result
}

// Check refuses kinds that cannot work before anything is read: a kind
// other than sqlite or declcfg, and a live server without one. It tells
// (through the log) what it finished of a killed write of a local side.
func (p Parity) Check() error {
	for _, s := range []struct {
		ref, side, option string
		kind              input.Kind
	}{{p.Left, "left", "Parity.LeftKind", p.LeftKind}, {p.Right, "right", "Parity.RightKind", p.RightKind}} {
		if s.kind != "" && s.kind != input.KindSQLite && s.kind != input.KindDeclcfg {
			return usagef(s.option, "%s kind %q: want %s or %s", s.side, s.kind, input.KindSQLite, input.KindDeclcfg)
		}
		in, err := input.Classify(s.ref)
		if err != nil {
			// A side Classify cannot tell is the check's to report.
			continue
		}
		for _, line := range in.Finished {
			p.log(line)
		}
		if in.Kind == input.KindCatalogd && s.kind != "" {
			return usagef(s.option, "%s is a catalogd server: a kind names the backend of a live gRPC server only", s.ref)
		}
		if in.Kind == input.KindGRPC && s.kind == "" {
			return usagef(s.option, "%s is a live server: %s (the sqlite vs declarative config rules apply only between those two backends)",
				s.ref, NameKind)
		}
	}
	return nil
}

// NameKind is what Check asks of a live side without a kind (the CLI
// names its flag instead).
const NameKind = "name its kind, sqlite or declcfg"

// Run checks the options, resolves the sides (pulling images) and runs
// the check, showing its steps through Env.Progress("parity"). When a
// side is a catalogd server (http(s)://…/catalogs/<name>) the check
// compares blobs, as OLM v1 reads them (parity.CheckBlobs): each local
// side as catalogd would serve it (CatalogdSource; with ViaGRPC, as its
// gRPC server answers), a grpc:// side rebuilt from its answers; else
// it compares the answers of the registry gRPC API (parity.Check). A
// difference is no error: see ParityResult.Result.OK.
func (p Parity) Run(ctx context.Context) (ParityResult, error) {
	if err := p.Check(); err != nil {
		return ParityResult{}, err
	}
	sides, release, err := p.resolveSides(ctx)
	defer release()
	if err != nil {
		return ParityResult{}, err
	}
	opts := []parity.Option{parity.WithConcurrency(p.Concurrency), parity.WithKinds(p.LeftKind, p.RightKind),
		parity.WithLoopback(p.Loopback), parity.WithMaxDiffs(p.MaxDiffs),
		parity.WithOnAbandonedRemoved(func(dir string) { p.log(AbandonedNote(dir)) })}
	blobs, err := p.blobSides(sides)
	if err != nil {
		return ParityResult{}, err
	}
	if p.Reports != nil {
		var at *Located
		if p.Locate {
			if at, err = located(ctx, [2]string{p.Left, p.Right}, sides); err != nil {
				return ParityResult{}, err
			}
		}
		for _, rep := range p.Reports(at) {
			opts = append(opts, parity.WithReport(rep))
		}
	}
	if p.Progress != nil {
		opts = append(opts, parity.WithProgress(checkProgress{p.Progress("parity")}))
	}
	var res *parity.Result
	if blobs != nil {
		res, err = parity.CheckBlobs(ctx, blobs[0], blobs[1], opts...)
	} else {
		res, err = parity.Check(ctx, sides[0], sides[1], opts...)
	}
	return ParityResult{Result: res}, err
}

// blobSides are the sides of a blob check, nil when no side is a
// catalogd server; sides are the refs as resolved (an image's extracted
// catalog).
func (p Parity) blobSides(sides [2]string) (*[2]parity.BlobSide, error) {
	var ins [2]*input.Input
	catalogd := false
	for i, ref := range sides {
		in, err := input.Classify(ref)
		if err != nil {
			return nil, err
		}
		ins[i], catalogd = in, catalogd || in.Kind == input.KindCatalogd
	}
	if !catalogd {
		return nil, nil
	}
	var out [2]parity.BlobSide
	for i, in := range ins {
		ref := [2]string{p.Left, p.Right}[i]
		switch {
		case in.Kind == input.KindCatalogd:
			out[i] = parity.BlobSide{Ref: ref, Kind: in.Kind, Backend: in.Kind, Blobs: catalogdhttp.Remote{Base: in.Addr}.Source()}
		case in.Kind == input.KindGRPC:
			out[i] = parity.GRPCSide(in.Path, in.Kind, [2]input.Kind{p.LeftKind, p.RightKind}[i])
		case p.ViaGRPC:
			out[i] = parity.GRPCSide(in.Path, in.Kind, in.Kind)
			out[i].Ref = ref
		default:
			out[i] = parity.BlobSide{Ref: ref, Kind: in.Kind, Backend: in.Kind, Blobs: serve.CatalogdSource(in)}
		}
	}
	return &out, nil
}

// resolveSides resolves the two sides: a catalog image is pulled and
// unpacked (release removes it), anything else is checked as given. Only
// a failed pull, or a bundle image, is an error here: what Resolve cannot
// tell, the check reports in its words.
func (p Parity) resolveSides(ctx context.Context) (sides [2]string, release func(), err error) {
	var closers []func()
	release = func() {
		for _, c := range closers {
			c()
		}
	}
	sides = [2]string{p.Left, p.Right}
	for i, ref := range sides {
		in, err := p.resolve(ctx, ref, input.Catalog, false)
		var (
			pe *input.PullError
			be *input.BundleError
		)
		switch {
		case errors.As(err, &pe) || errors.As(err, &be) && be.Image:
			return sides, release, err
		case err != nil:
			continue
		}
		closers = append(closers, func() { in.Close() })
		sides[i] = in.Path
		if in.Kind == input.KindSQLite && p.OnSQLite != nil {
			p.OnSQLite(ctx, ref, in.Path)
		}
	}
	return sides, release, nil
}

// located is the side differences are pointed into (see Located): refs
// as given, sides as resolved (an image's files are not the user's); nil
// when neither is a declarative config directory given as a path.
func located(ctx context.Context, refs, sides [2]string) (*Located, error) {
	for _, i := range []int{1, 0} {
		in, err := input.Classify(refs[i])
		if err != nil || in.Kind != input.KindDeclcfg || sides[i] != refs[i] {
			continue
		}
		loc, err := declcfg.NewLocator(ctx, refs[i])
		if err != nil {
			return nil, err
		}
		return &Located{Dir: refs[i], Locator: loc}, nil
	}
	return nil, nil
}

// checkProgress shows a check's steps (parity.Progress) on an Env's
// progress.
type checkProgress struct{ p image.Progress }

func (c checkProgress) Start(total int) { c.p.Start(int64(total)) }
func (c checkProgress) Add(n int)       { c.p.Add(int64(n)) }
func (c checkProgress) Done()           { c.p.Done() }

package parity

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/tempdir"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

// Modes of a check (Result.Mode).
const (
	// ModeRPC compares the answers of the registry gRPC API, call by call
	// (Check).
	ModeRPC = "rpc"
	// ModeBlobs compares the blobs catalogd's HTTP API serves, blob by
	// blob (CheckBlobs).
	ModeBlobs = "blobs"
)

// The kinds of blob a blob check counts (its Stats' names): one per
// schema OLM reads, the other blobs, and the order of /all (one count).
const (
	BlobPackage      = "olm.package"
	BlobChannel      = "olm.channel"
	BlobBundle       = "olm.bundle"
	BlobDeprecations = "olm.deprecations"
	BlobOther        = "other"
	BlobOrder        = "order"
)

// BlobKinds lists the blob kinds in report order.
var BlobKinds = []string{BlobPackage, BlobChannel, BlobBundle, BlobDeprecations, BlobOther, BlobOrder}

// BlobSide is one side of a blob check: a catalog as catalogd serves it.
type BlobSide struct {
	// Ref names the side in the Result; Kind and Backend are what it is
	// (input.KindCatalogd for a catalogd server) and serves from.
	Ref           string
	Kind, Backend input.Kind
	// Blobs gives every blob of the catalog in the order served (a
	// catalogd server's /all, catalogdhttp.Remote; the blobs of local
	// files, in the order catalogd walks them). Each is re-encoded as
	// catalogd does before it is compared, so catalogd's documented
	// re-encodings (key order, spacing, YAML, numbers through float64)
	// are no difference.
	Blobs catalogdhttp.Source
	// Rebuilt marks a catalog rebuilt from the registry gRPC API
	// (GRPCSide): its order means nothing, and the fields that API does
	// not carry are not compared.
	Rebuilt bool
}

// CheckBlobs compares what two catalogs serve as catalogd serves them,
// blob by blob: each blob of either side (named by its schema, package
// and name) is looked up on the other and compared as JSON, then the
// order of the blobs both serve. Each side is first encoded as catalogd
// stores it, into a file in a temporary directory, with only an index of
// where each blob is in memory, and the blobs are compared one package at
// a time. The Result's Mode is ModeBlobs and its Stats count blobs per
// BlobKinds; WithConcurrency, WithLoopback and WithKinds do not apply.
//
// It returns an error only when a side cannot be read; data differences
// are in the Result.
func CheckBlobs(ctx context.Context, left, right BlobSide, opts ...Option) (res *Result, err error) {
	o := options{maxDiffs: -1}
	for _, opt := range opts {
		opt(&o)
	}
	dir, err := tempdir.Scratch("olmcat-parity-", func(d string) {
		if o.onAbandoned != nil {
			o.onAbandoned(d)
		}
	})
	if err != nil {
		return nil, err
	}
	defer func() {
		if rerr := dir.Remove(); err == nil && rerr != nil {
			res, err = nil, rerr
		}
	}()
	sides := [2]BlobSide{left, right}
	var snaps [2]*catalogdhttp.Snapshot
	defer func() {
		for _, s := range snaps {
			if s != nil {
				s.Close()
			}
		}
	}()
	var g errgroup.Group
	for i, s := range sides {
		g.Go(func() error {
			var err error
			if snaps[i], err = catalogdhttp.Build(ctx, dir.Path, s.Blobs); err != nil {
				return fmt.Errorf("read %s: %w", s.Ref, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return runBlobs(ctx, sides, snaps, o)
}

// runBlobs compares the two encoded catalogs and reports as it goes.
func runBlobs(ctx context.Context, sides [2]BlobSide, snaps [2]*catalogdhttp.Snapshot, o options) (*Result, error) {
	res := &Result{Mode: ModeBlobs,
		Left:  SideInfo{Ref: sides[0].Ref, Kind: sides[0].Kind, Backend: sides[0].Backend},
		Right: SideInfo{Ref: sides[1].Ref, Kind: sides[1].Kind, Backend: sides[1].Backend},
	}
	t := newTally(res, BlobKinds, o.maxDiffs, o.reports)
	for _, rep := range o.reports {
		if err := rep.Begin(res.Left, res.Right); err != nil {
			return nil, fmt.Errorf("write report: %w", err)
		}
	}
	bc := newBlobCheck(sides, snaps)
	if o.progress != nil {
		o.progress.Start(len(bc.list[0]) + len(bc.list[1]))
		defer o.progress.Done()
	}
	err := bc.eachGroup(func(pairs []blobPair) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		u, err := bc.compareGroup(pairs)
		if err != nil {
			return err
		}
		for i, c := range u.calls {
			t.diffs(u.diffs[i])
			t.call(c.rpc, worst(u.diffs[i]))
		}
		if pkg := pairs[0].key.group; pkg != "" {
			t.packageDone(pkg, u)
		}
		if o.progress != nil {
			served := 0 // the group's blobs, counted per side
			for _, p := range pairs {
				for _, id := range p.ids {
					if id >= 0 {
						served++
					}
				}
			}
			o.progress.Add(served)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !sides[0].Rebuilt && !sides[1].Rebuilt {
		diffs := bc.order()
		t.diffs(diffs)
		t.call(BlobOrder, worst(diffs))
	}
	t.finish()
	if t.err != nil {
		return nil, fmt.Errorf("write report: %w", t.err)
	}
	for _, rep := range o.reports {
		if err := rep.End(res); err != nil {
			return nil, fmt.Errorf("write report: %w", err)
		}
	}
	return res, nil
}

// blobKey names a blob: its package (an olm.package blob's is its name),
// schema and name, and which of the blobs with those it is (0 for the
// first served).
type blobKey struct {
	group, schema, pkg, name string
	nth                      int
}

// kind is the blob kind k counts as.
func (k blobKey) kind() string {
	switch k.schema {
	case BlobPackage, BlobChannel, BlobBundle, BlobDeprecations:
		return k.schema
	}
	return BlobOther
}

// request names the blob in field=value form for reports.
func (k blobKey) request() string {
	var parts []string
	for _, f := range [][2]string{{"schema", k.schema}, {"package", k.pkg}, {"name", k.name}} {
		if f[1] != "" {
			parts = append(parts, f[0]+"="+f[1])
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "(no schema)")
	}
	if k.nth > 0 {
		parts = append(parts, fmt.Sprintf("#%d", k.nth+1))
	}
	return strings.Join(parts, " ")
}

// schemaRank orders a package's blobs as a catalog lists them.
func schemaRank(schema string) int {
	if i := slices.Index(BlobKinds[:4], schema); i >= 0 {
		return i
	}
	return len(BlobKinds)
}

// keyLess orders blobs by package (the blobs of no package last), then
// schema, name and occurrence.
func keyLess(a, b blobKey) bool {
	if a.group != b.group {
		return b.group == "" || a.group != "" && a.group < b.group
	}
	if ra, rb := schemaRank(a.schema), schemaRank(b.schema); ra != rb {
		return ra < rb
	}
	if a.schema != b.schema {
		return a.schema < b.schema
	}
	if a.pkg != b.pkg {
		return a.pkg < b.pkg
	}
	if a.name != b.name {
		return a.name < b.name
	}
	return a.nth < b.nth
}

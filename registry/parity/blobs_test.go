package parity

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/input"
	"github.com/operator-catalog/olmcat/internal/testutil/catalogdtest"
	"github.com/operator-catalog/olmcat/registry/catalogdhttp"
)

func remoteSide(base string) BlobSide {
	return BlobSide{Ref: base, Kind: input.KindCatalogd, Backend: input.KindCatalogd, Blobs: catalogdhttp.Remote{Base: base}.Source()}
}

func dirSide(dir string) BlobSide {
	return BlobSide{Ref: dir, Kind: input.KindDeclcfg, Backend: input.KindDeclcfg, Blobs: catalogdhttp.DirSource(dir)}
}

// TestCheckBlobsSameCatalog: catalogd's answer for a directory is the
// directory, blob by blob, against the files and against itself.
func TestCheckBlobsSameCatalog(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			dir := fixtureOPM(name)
			base := catalogdtest.Serve(t, "ops", catalogdhttp.DirSource(dir))
			for _, tc := range []struct {
				name        string
				left, right BlobSide
			}{
				{"http vs dir", remoteSide(base), dirSide(dir)},
				{"dir vs http", dirSide(dir), remoteSide(base)},
				{"http vs itself", remoteSide(base), remoteSide(base + "/")},
			} {
				res, err := CheckBlobs(context.Background(), tc.left, tc.right)
				require.NoError(t, err, tc.name)
				assert.Equal(t, ModeBlobs, res.Mode)
				assert.Empty(t, keys(res.Diffs), tc.name)
				assert.True(t, res.OK(true), tc.name)
				assert.Positive(t, res.Calls, tc.name)
				assert.Equal(t, res.Calls, sumIdentical(res.Stats), tc.name)
			}
		})
	}
}

func sumIdentical(stats []RPCStats) int {
	n := 0
	for _, s := range stats {
		n += s.Identical
	}
	return n
}

// TestCheckBlobsDifferences: every kind of difference a blob check
// finds, each once, with its rule.
func TestCheckBlobsDifferences(t *testing.T) {
	dir := fixtureOPM("small-fbb")
	changed := mutateCopy(t, dir, func(path string, blobs []blob) []blob {
		if filepath.Dir(path) != "foo" {
			return blobs
		}
		var out []blob
		for _, b := range blobs {
			switch {
			case b["schema"] == "olm.package":
				b["description"] = "changed"
			case b["schema"] == "olm.channel" && b["name"] == "beta":
				continue // dropped
			case b["schema"] == "olm.bundle" && b["name"] == "foo.v0.1.0":
				props := b["properties"].([]any)
				props[0], props[len(props)-1] = props[len(props)-1], props[0]
			case b["schema"] == "olm.bundle" && b["name"] == "foo.v0.2.0":
				b["image"] = "changed"
			}
			out = append(out, b)
		}
		// The package blob last: the same blobs, in another order.
		return append(out[1:], out[0])
	})
	base := catalogdtest.Serve(t, "changed", catalogdhttp.DirSource(changed))
	res, err := CheckBlobs(context.Background(), dirSide(dir), remoteSide(base))
	require.NoError(t, err)
	assert.Equal(t, []diffKey{
		{BlobPackage, "schema=olm.package name=foo", ".description", RuleFieldDiffers.Name},
		{BlobChannel, "schema=olm.channel package=foo name=beta", "", RuleBlobMissing.Name},
		{BlobBundle, "schema=olm.bundle package=foo name=foo.v0.2.0", ".image", RuleFieldDiffers.Name},
		{BlobBundle, "schema=olm.bundle package=foo name=foo.v0.1.0", ".properties", RuleListOrder.Name},
		// beta is gone: stable is the first blob both serve after foo's
		// package blob, which the right side serves last.
		{BlobOrder, "schema=olm.channel package=foo name=stable", "", RuleBlobOrder.Name},
	}, keys(res.Diffs))
	assert.Equal(t, `"changed"`, res.Diffs[0].Right)
	assert.Equal(t, notServed, res.Diffs[1].Right)
	assert.False(t, res.OK(false))
	assert.Equal(t, 3, res.LossCalls)
	assert.Equal(t, 2, res.BenignCalls)
}

// TestRemoteBounds: a catalogd side that is not there, too large or
// stalled fails the check with an error naming its URL, in bounded
// time.
func TestRemoteBounds(t *testing.T) {
	// The scratch directories are looked for in a temporary directory of
	// this test's own: other tests' processes (go test runs packages side
	// by side) make and remove theirs in the machine's.
	t.Setenv("TMPDIR", t.TempDir())
	body := `{"schema":"olm.package","name":"a"}` + "\n" + `{"schema":"olm.package","name":"b"}` + "\n"
	stall := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/catalogs/ok/api/v1/all":
			_, _ = io.WriteString(w, body)
		case "/catalogs/stalled/api/v1/all":
			_, _ = io.WriteString(w, body[:10])
			w.(http.Flusher).Flush()
			<-stall
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	defer close(stall) // before Close, which waits for the stalled handler
	for _, tc := range []struct {
		name, base, err string
		remote          catalogdhttp.Remote
	}{
		{name: "not found", base: "/catalogs/missing", err: "/catalogs/missing/api/v1/all: 404 Not Found"},
		{name: "too large", base: "/catalogs/ok", remote: catalogdhttp.Remote{MaxBytes: int64(len(body) - 1)}, err: "larger than"},
		{name: "stalled", base: "/catalogs/stalled", remote: catalogdhttp.Remote{Idle: 200 * time.Millisecond}, err: "no answer from the server for 200ms"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.remote
			r.Base = srv.URL + tc.base
			side := BlobSide{Ref: r.Base, Kind: input.KindCatalogd, Blobs: r.Source()}
			_, err := CheckBlobs(context.Background(), side, side)
			require.ErrorContains(t, err, tc.err)
			assert.ErrorContains(t, err, r.Base)
		})
	}
	ok := catalogdhttp.Remote{Base: srv.URL + "/catalogs/ok", MaxBytes: int64(len(body))}
	res, err := CheckBlobs(context.Background(), BlobSide{Ref: "ok", Blobs: ok.Source()}, BlobSide{Ref: "ok", Blobs: ok.Source()})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Calls, "two package blobs and the order")
	entries, err := os.ReadDir(os.TempDir())
	require.NoError(t, err)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), "olmcat-parity-", "the check removes its scratch directory")
	}
}

// TestCheckBlobsHTTPvsGRPC: the catalogd HTTP API and the registry gRPC
// API of the same catalog serve the same blobs, except what the gRPC API
// does not carry.
func TestCheckBlobsHTTPvsGRPC(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			dir := fixtureOPM(name)
			base := catalogdtest.Serve(t, "ops", catalogdhttp.DirSource(dir))
			for _, grpc := range []BlobSide{
				GRPCSide(dir, input.KindDeclcfg, input.KindDeclcfg),            // answered in process
				GRPCSide(serveGRPC(t, dir), input.KindGRPC, input.KindDeclcfg), // over loopback TCP
			} {
				res, err := CheckBlobs(context.Background(), remoteSide(base), grpc)
				require.NoError(t, err)
				assert.Empty(t, res.Losses(), grpc.Ref)
				for rule := range res.RulesSeen {
					assert.Contains(t, []string{RuleNotCarriedByGRPC.Name, RuleListOrder.Name}, rule)
				}
				assert.Positive(t, res.RulesSeen[RuleNotCarriedByGRPC.Name], "bundle objects, related images")
				assert.Zero(t, res.Stats[len(res.Stats)-1].Calls, "the order of a rebuilt catalog is not compared")
			}
		})
	}
}

// TestCheckBlobsSQLiteVsMigration: what OLM v0 read from a legacy index
// (its sqlite server, rebuilt) against what OLM v1 reads from catalogd
// serving its migration (real opm's): only the migration's known changes
// and what the gRPC API does not carry differ.
func TestCheckBlobsSQLiteVsMigration(t *testing.T) {
	benign := []string{RuleNotCarriedByGRPC.Name, RuleListOrder.Name, RuleRequiredPropertiesFBCOnly.Name, RuleDeprecatedBundleDropped.Name}
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			base := catalogdtest.Serve(t, "ops", catalogdhttp.DirSource(fixtureOPM(name)))
			res, err := CheckBlobs(context.Background(), GRPCSide(fixtureDB(name), input.KindSQLite, input.KindSQLite), remoteSide(base))
			require.NoError(t, err)
			assert.Empty(t, res.Losses())
			for rule := range res.RulesSeen {
				assert.Contains(t, benign, rule)
			}
			if name == "small-fbb-deprecated" {
				assert.Equal(t, 2, res.RulesSeen[RuleDeprecatedBundleDropped.Name], "the bundle and its channel entry")
			}
		})
	}
}

// TestCheckBlobsRepeatedKeys: blobs with the same schema, package and
// name (as catalogd stores them, unchecked) are matched in served order,
// and schema-less ones among the blobs of no package.
func TestCheckBlobsRepeatedKeys(t *testing.T) {
	write := func(blobs string) string {
		dir := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(blobs), 0o644))
		return dir
	}
	full := write(`{"schema":"olm.package","name":"p"}
{"schema":"x.note","package":"p","name":"n","text":"one"}
{"schema":"x.note","package":"p","name":"n","text":"two"}
{"comment":"no schema"}
`)
	short := write(`{"schema":"olm.package","name":"p"}
{"schema":"x.note","package":"p","name":"n","text":"one"}
{"comment":"no schema"}
`)
	res, err := CheckBlobs(context.Background(), dirSide(full), remoteSide(catalogdtest.Serve(t, "full", catalogdhttp.DirSource(full))))
	require.NoError(t, err)
	assert.True(t, res.OK(true))
	assert.Equal(t, 5, res.Calls, "four blobs and the order")

	res, err = CheckBlobs(context.Background(), dirSide(full), dirSide(short))
	require.NoError(t, err)
	assert.Equal(t, []diffKey{{BlobOther, "schema=x.note package=p name=n #2", "", RuleBlobMissing.Name}}, keys(res.Diffs))
}

// TestCheckBlobsSweepsAbandoned: the scratch directory a killed check
// left is removed by the next check, which tells it.
func TestCheckBlobsSweepsAbandoned(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	left := filepath.Join(os.TempDir(), "olmcat-parity-1234.olmcat")
	require.NoError(t, os.MkdirAll(filepath.Join(left, "x"), 0o755))
	side := BlobSide{Ref: "ok", Blobs: catalogdhttp.DirSource(fixtureOPM("small-fbb"))}
	var removed []string
	_, err := CheckBlobs(context.Background(), side, side, WithOnAbandonedRemoved(func(d string) { removed = append(removed, d) }))
	require.NoError(t, err)
	assert.Equal(t, []string{left}, removed)
	assert.NoDirExists(t, left)
}

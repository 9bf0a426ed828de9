package registry_test

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/operator-catalog/olmcat/registry/api"
	"github.com/operator-catalog/olmcat/registry/declcfgquery"
)

// The fixture catalogs whose real `opm serve` answers were recorded in
// grpc/fbc/<RPC>-<args>.json (grpcurl output; an error is an empty file
// plus <file>.err).
var grpcFixtures = []string{
	"small-fbb",
	"small-fbb-deprecated",
	"opm-manifests",
	"edge-before-substitutes",
	"edge-substitutes",
	"community-bundles",
}

// TestFixturesMatchOpmServe serves each fixture's opm-migrate directory and
// replays every recorded call over loopback gRPC, requiring the same
// answer as the real opm serve (lists that opm returns in random order are
// compared sorted).
func TestFixturesMatchOpmServe(t *testing.T) {
	for _, name := range grpcFixtures {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := client(t, loadFixture(t, name))
			replayAll(t, c, name)
		})
		// The same answers must come from a Querier restored from its
		// cache snapshot.
		t.Run(name+"/from-cache", func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(fixturesDir, name, "opm-migrate")
			cache := t.TempDir()
			first, err := declcfgquery.Load(context.Background(), dir, declcfgquery.WithCacheDir(cache))
			require.NoError(t, err)
			require.True(t, first.Stats().CacheWritten)
			q, err := declcfgquery.Load(context.Background(), dir, declcfgquery.WithCacheDir(cache))
			require.NoError(t, err)
			require.True(t, q.Stats().FromCache)
			replayAll(t, client(t, q), name)
		})
	}
}

// replayAll replays every call recorded for fixture name against c.
func replayAll(t *testing.T, c api.RegistryClient, name string) {
	t.Helper()
	dir := filepath.Join(fixturesDir, name, "grpc", "fbc")
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	chans := fixtureChannels(t, dir)
	for _, f := range files {
		call := strings.TrimSuffix(filepath.Base(f), ".json")
		t.Run(call, func(t *testing.T) {
			replay(t, c, chans, f, call)
		})
	}
}

// pkgChannel is a (package, channel) pair of a fixture catalog.
type pkgChannel struct{ pkg, channel string }

// fixtureChannels lists the fixture's package/channel pairs from the
// recorded GetPackage answers, longest first, to split file names whose
// parts contain dashes.
func fixtureChannels(t *testing.T, dir string) []pkgChannel {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "GetPackage-*.json"))
	require.NoError(t, err)
	var out []pkgChannel
	for _, f := range files {
		for _, m := range readStream(t, f, func() proto.Message { return &api.Package{} }) {
			p := m.(*api.Package)
			for _, c := range p.Channels {
				out = append(out, pkgChannel{p.Name, c.Name})
			}
		}
	}
	slices.SortFunc(out, func(a, b pkgChannel) int {
		return cmp.Compare(len(b.pkg)+len(b.channel), len(a.pkg)+len(a.channel))
	})
	return out
}

// splitPkgChannel splits "<pkg>-<channel>[-<rest>]".
func splitPkgChannel(t *testing.T, chans []pkgChannel, s string, withRest bool) (pkg, channel, rest string) {
	t.Helper()
	for _, pc := range chans {
		prefix := pc.pkg + "-" + pc.channel
		if withRest && strings.HasPrefix(s, prefix+"-") {
			return pc.pkg, pc.channel, strings.TrimPrefix(s, prefix+"-")
		}
		if !withRest && s == prefix {
			return pc.pkg, pc.channel, ""
		}
	}
	require.Failf(t, "cannot split into package and channel", "%q", s)
	return
}

func splitGVK(t *testing.T, s string) (group, version, kind string) {
	t.Helper()
	parts := strings.Split(s, "_")
	require.Len(t, parts, 3, "group_version_kind in %q", s)
	return parts[0], parts[1], parts[2]
}

func replay(t *testing.T, c api.RegistryClient, chans []pkgChannel, file, call string) {
	t.Helper()
	ctx := context.Background()
	rpc, arg, _ := strings.Cut(call, "-")
	var (
		got     []proto.Message
		err     error
		newMsg  func() proto.Message
		ordered = true
	)
	bundle := func() proto.Message { return &api.Bundle{} }
	chEntry := func() proto.Message { return &api.ChannelEntry{} }
	switch rpc {
	case "ListPackages":
		newMsg, ordered = func() proto.Message { return &api.PackageName{} }, false
		got, err = drain(c.ListPackages(ctx, &api.ListPackageRequest{}))
	case "ListBundles":
		newMsg = bundle
		got, err = drain(c.ListBundles(ctx, &api.ListBundlesRequest{}))
	case "GetPackage":
		newMsg = func() proto.Message { return &api.Package{} }
		got, err = unary(c.GetPackage(ctx, &api.GetPackageRequest{Name: arg}))
	case "GetBundle":
		newMsg = bundle
		p, ch, csv := splitPkgChannel(t, chans, arg, true)
		got, err = unary(c.GetBundle(ctx, &api.GetBundleRequest{PkgName: p, ChannelName: ch, CsvName: csv}))
	case "GetBundleForChannel":
		newMsg = bundle
		p, ch, _ := splitPkgChannel(t, chans, arg, false)
		//lint:ignore SA1019 the deprecated RPC is served and recorded like every other
		got, err = unary(c.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: p, ChannelName: ch}))
	case "GetBundleThatReplaces":
		newMsg = bundle
		p, ch, csv := splitPkgChannel(t, chans, arg, true)
		got, err = unary(c.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: csv, PkgName: p, ChannelName: ch}))
	case "GetChannelEntriesThatReplace":
		newMsg, ordered = chEntry, false
		got, err = drain(c.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: arg}))
	case "GetChannelEntriesThatProvide":
		newMsg, ordered = chEntry, false
		g, v, k := splitGVK(t, arg)
		got, err = drain(c.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{Group: g, Version: v, Kind: k}))
	case "GetLatestChannelEntriesThatProvide":
		newMsg, ordered = chEntry, false
		g, v, k := splitGVK(t, arg)
		got, err = drain(c.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{Group: g, Version: v, Kind: k}))
	case "GetDefaultBundleThatProvides":
		newMsg = bundle
		g, v, k := splitGVK(t, arg)
		got, err = unary(c.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: g, Version: v, Kind: k}))
	default:
		require.Failf(t, "unknown RPC in fixture name", "%q", call)
	}

	if errText, rerr := os.ReadFile(file + ".err"); rerr == nil {
		require.Error(t, err)
		st, _ := status.FromError(err)
		require.Equal(t, codes.Unknown, st.Code())
		require.Equal(t, recordedMessage(t, errText), st.Message())
		return
	}
	require.NoError(t, err)
	want := readStream(t, file, newMsg)
	if !ordered {
		sortMessages(want)
		sortMessages(got)
	}
	require.Empty(t, gocmp.Diff(want, got, protocmp.Transform()), "answer differs from opm serve's (-opm +olmcat)")
}

// recordedMessage extracts "Message: ..." from grpcurl's error output.
func recordedMessage(t *testing.T, errText []byte) string {
	t.Helper()
	for _, line := range strings.Split(string(errText), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(line), "Message: "); ok {
			return m
		}
	}
	require.Failf(t, "no Message line in recorded error", "%q", errText)
	return ""
}

func unary[M proto.Message](m M, err error) ([]proto.Message, error) {
	if err != nil {
		return nil, err
	}
	return []proto.Message{m}, nil
}

func drain[M any, PM interface {
	*M
	proto.Message
}](stream grpc.ServerStreamingClient[M], err error) ([]proto.Message, error) {
	if err != nil {
		return nil, err
	}
	var out []proto.Message
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, PM(m))
	}
}

// readStream decodes a grpcurl output file: concatenated JSON documents,
// each a message in protojson form.
func readStream(t *testing.T, file string, newMsg func() proto.Message) []proto.Message {
	t.Helper()
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(data))
	var out []proto.Message
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
			return out
		} else {
			require.NoError(t, err, file)
		}
		m := newMsg()
		require.NoError(t, protojson.Unmarshal(raw, m), file)
		out = append(out, m)
	}
}

// sortMessages orders messages by their deterministic wire encoding, for
// streams opm sends in random order.
func sortMessages(ms []proto.Message) {
	key := func(m proto.Message) string {
		b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		return string(b)
	}
	slices.SortFunc(ms, func(a, b proto.Message) int { return strings.Compare(key(a), key(b)) })
}

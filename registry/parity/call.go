package parity

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/operator-catalog/olmcat/registry/api"

	"github.com/operator-catalog/olmcat/internal/manifest"
)

// call is one RPC with its request, made on both sides.
type call struct {
	rpc string
	// request fields; which ones matter depends on rpc.
	pkg, channel, name string
	gvk                manifest.GVK
	probe              bool
}

// request renders the call's request in field=value form for reports.
func (c call) request() string {
	switch c.rpc {
	case RPCGetPackage:
		return fmt.Sprintf("name=%s", c.pkg)
	case RPCGetBundle:
		return fmt.Sprintf("pkgName=%s channelName=%s csvName=%s", c.pkg, c.channel, c.name)
	case RPCGetBundleForChannel:
		return fmt.Sprintf("pkgName=%s channelName=%s", c.pkg, c.channel)
	case RPCGetChannelEntriesThatReplace:
		return fmt.Sprintf("csvName=%s", c.name)
	case RPCGetBundleThatReplaces:
		return fmt.Sprintf("csvName=%s pkgName=%s channelName=%s", c.name, c.pkg, c.channel)
	case RPCGetChannelEntriesThatProvide, RPCGetLatestChannelEntriesThatProvide, RPCGetDefaultBundleThatProvides:
		return fmt.Sprintf("group=%s version=%s kind=%s", c.gvk.Group, c.gvk.Version, c.gvk.Kind)
	}
	return ""
}

// answer is one side's answer to a call: an error or the data.
type answer struct {
	err     error
	names   []string
	pkg     *api.Package
	bundle  *api.Bundle
	bundles []*api.Bundle
	entries []*api.ChannelEntry
}

// errText is the error message as the client sees it (no gRPC prefix).
func (a answer) errText() string {
	if a.err == nil {
		return ""
	}
	return status.Convert(a.err).Message()
}

// transportError reports errors that say nothing about the catalog (the
// server is gone or the check was cancelled): they abort the check.
func transportError(err error) bool {
	switch status.Code(err) {
	case codes.Unavailable, codes.Canceled, codes.DeadlineExceeded, codes.Unimplemented:
		return true
	}
	return errors.Is(err, context.Canceled)
}

// invoke makes c on client. The returned error is a transport error; a
// catalog's error answer is in answer.err.
func invoke(ctx context.Context, client api.RegistryClient, c call) (answer, error) {
	var a answer
	switch c.rpc {
	case RPCListPackages:
		a.err = recvAll(ctx, func() (grpc.ServerStreamingClient[api.PackageName], error) {
			return client.ListPackages(ctx, &api.ListPackageRequest{})
		}, func(m *api.PackageName) { a.names = append(a.names, m.GetName()) })
	case RPCGetPackage:
		a.pkg, a.err = client.GetPackage(ctx, &api.GetPackageRequest{Name: c.pkg})
	case RPCGetBundle:
		a.bundle, a.err = client.GetBundle(ctx, &api.GetBundleRequest{PkgName: c.pkg, ChannelName: c.channel, CsvName: c.name})
	case RPCGetBundleForChannel:
		//lint:ignore SA1019 opm still serves the deprecated RPC and clients call it: parity compares it too
		a.bundle, a.err = client.GetBundleForChannel(ctx, &api.GetBundleInChannelRequest{PkgName: c.pkg, ChannelName: c.channel})
	case RPCGetChannelEntriesThatReplace:
		a.err = recvAll(ctx, func() (grpc.ServerStreamingClient[api.ChannelEntry], error) {
			return client.GetChannelEntriesThatReplace(ctx, &api.GetAllReplacementsRequest{CsvName: c.name})
		}, func(m *api.ChannelEntry) { a.entries = append(a.entries, m) })
	case RPCGetBundleThatReplaces:
		a.bundle, a.err = client.GetBundleThatReplaces(ctx, &api.GetReplacementRequest{CsvName: c.name, PkgName: c.pkg, ChannelName: c.channel})
	case RPCGetChannelEntriesThatProvide:
		a.err = recvAll(ctx, func() (grpc.ServerStreamingClient[api.ChannelEntry], error) {
			return client.GetChannelEntriesThatProvide(ctx, &api.GetAllProvidersRequest{Group: c.gvk.Group, Version: c.gvk.Version, Kind: c.gvk.Kind})
		}, func(m *api.ChannelEntry) { a.entries = append(a.entries, m) })
	case RPCGetLatestChannelEntriesThatProvide:
		a.err = recvAll(ctx, func() (grpc.ServerStreamingClient[api.ChannelEntry], error) {
			return client.GetLatestChannelEntriesThatProvide(ctx, &api.GetLatestProvidersRequest{Group: c.gvk.Group, Version: c.gvk.Version, Kind: c.gvk.Kind})
		}, func(m *api.ChannelEntry) { a.entries = append(a.entries, m) })
	case RPCGetDefaultBundleThatProvides:
		a.bundle, a.err = client.GetDefaultBundleThatProvides(ctx, &api.GetDefaultProviderRequest{Group: c.gvk.Group, Version: c.gvk.Version, Kind: c.gvk.Kind})
	case RPCListBundles:
		a.err = recvAll(ctx, func() (grpc.ServerStreamingClient[api.Bundle], error) {
			return client.ListBundles(ctx, &api.ListBundlesRequest{})
		}, func(m *api.Bundle) { a.bundles = append(a.bundles, m) })
	default:
		return a, fmt.Errorf("unknown RPC %q", c.rpc)
	}
	if a.err != nil && (transportError(a.err) || ctx.Err() != nil) {
		return a, fmt.Errorf("%s {%s}: %w", c.rpc, c.request(), a.err)
	}
	return a, nil
}

// listBundles makes ListBundles on client, passing each bundle to add as
// it arrives rather than holding the answer. The returned error is a
// transport error; the catalog's error answer is answerErr.
func listBundles(ctx context.Context, client api.RegistryClient, add func(*api.Bundle)) (answerErr, err error) {
	answerErr = recvAll(ctx, func() (grpc.ServerStreamingClient[api.Bundle], error) {
		return client.ListBundles(ctx, &api.ListBundlesRequest{})
	}, add)
	if answerErr != nil && (transportError(answerErr) || ctx.Err() != nil) {
		return nil, fmt.Errorf("%s {}: %w", RPCListBundles, answerErr)
	}
	return answerErr, nil
}

// recvAll opens a server stream and collects every message. An error in
// the middle of a stream is the answer's error, as for a unary call.
func recvAll[T any](ctx context.Context, open func() (grpc.ServerStreamingClient[T], error), add func(*T)) error {
	stream, err := open()
	if err != nil {
		return err
	}
	for {
		m, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		add(m)
	}
}

// errOrAnswer renders an answer for a diff's left/right.
func errOrAnswer(a answer, what string) string {
	if a.err != nil {
		return "error: " + a.errText()
	}
	return what
}

func joinSorted(items []string) string { return "[" + strings.Join(items, ", ") + "]" }

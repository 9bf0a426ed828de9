package registry

import (
	"context"

	"github.com/operator-catalog/olmcat/registry/api"
)

// Querier answers the registry API for one catalog. Both backends implement it; the one Server serves either.
//
// Methods return plain errors for "not found" (the Server passes them on
// as gRPC code Unknown, as operator-registry does). Returned messages may
// be shared with the querier's own state: callers must not modify them.
type Querier interface {
	ListPackages(ctx context.Context) ([]string, error)
	GetPackage(ctx context.Context, name string) (*api.Package, error)
	GetBundle(ctx context.Context, pkgName, channelName, csvName string) (*api.Bundle, error)
	GetBundleForChannel(ctx context.Context, pkgName, channelName string) (*api.Bundle, error)
	GetChannelEntriesThatReplace(ctx context.Context, name string) ([]*api.ChannelEntry, error)
	GetBundleThatReplaces(ctx context.Context, name, pkgName, channelName string) (*api.Bundle, error)
	GetChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error)
	GetLatestChannelEntriesThatProvide(ctx context.Context, group, version, kind string) ([]*api.ChannelEntry, error)
	GetBundleThatProvides(ctx context.Context, group, version, kind string) (*api.Bundle, error)
	ListBundles(ctx context.Context, fn func(*api.Bundle) error) error
	Close() error
}

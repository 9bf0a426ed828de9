// Package api holds the operator-registry gRPC contract (registry.proto)
// and its generated Go code: the api.Registry service, its messages and
// client/server stubs. The proto is wire-compatible with
// operator-framework/operator-registry's pkg/api, so OLM, opm clients and
// grpcurl talk to olmcat servers unchanged.
//
// The .pb.go files are generated; run `make generate` after editing
// registry.proto. Generation needs no protoc (see internal/gen).
package api

//go:generate go run ./internal/gen -proto registry.proto -out .

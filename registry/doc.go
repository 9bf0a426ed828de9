// Package registry serves a catalog with the operator-registry gRPC API
// (api.Registry). It owns the Querier interface both backends implement
// (declcfgquery for declarative configs, legacyquery for sqlite indexes),
// the one Server that answers api.Registry from any Querier, and the
// helpers that build and run a *grpc.Server with health and reflection:
//
//	q, _, err := source.Open(ctx, path)           // dir or index.db
//	defer q.Close()
//	lis, _ := net.Listen("tcp", ":50051")
//	err = registry.Serve(ctx, lis, q, registry.WithLogger(logger))
//
// NewGRPCServer returns the configured *grpc.Server for callers that run
// it themselves (the parity checker serves two at once).
package registry

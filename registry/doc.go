// Package registry serves a catalog with the operator-registry gRPC API
// (api.Registry). It owns the Querier interface both backends implement
// (declcfgquery for declarative configs, legacyquery for sqlite indexes),
// the one Server that answers api.Registry from any Querier, and the
// helpers that build and run a *grpc.Server with health and reflection.
package registry

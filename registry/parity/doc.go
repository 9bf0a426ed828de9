// Package parity checks that two catalogs answer the operator-registry
// gRPC API (api.Registry) the same way, RPC by RPC.
//
// Each side is a legacy sqlite index, a declarative config directory or a
// live server (grpc://host:port). Local sides are served in-process over
// real loopback TCP with registry.NewGRPCServer, so the wire is checked
// too; both sides are then queried only through api.RegistryClient.
//
// Check enumerates every RPC over everything either catalog contains
// (packages, channels, bundles, replaced and skipped names, provided and
// required GVKs) plus not-found probes, compares the answers as data (sets
// where the API is unordered, JSON values parsed), and classifies every
// difference: a loss (data the right side does not serve as the left side
// did), or a known benign difference between the sqlite and the
// declarative config servers, each named by a Rule that cites the
// registry gRPC reference. The package owns that classification, the
// Result it produces, and its text and JSON renderings.
package parity

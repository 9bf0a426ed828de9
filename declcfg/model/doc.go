// Package model owns the linked, validated form of a declarative config:
// the Model (packages own channels, channels own their bundles, as the
// registry API serves them), its rules and their errors, and the
// conversion from declcfg's blobs (FromDeclcfg, in fromdeclcfg.go). It
// imports declcfg, never the reverse: declcfg reads and writes blobs, this
// package gives them meaning.
//
// Validation (FromDeclcfg, Model.Validate) applies opm's rules and reports
// every problem at once, each naming its file, blob position and blob.
// The rules run per element (Package, Channel and Bundle each have a
// Validate) and fail with nested *Error values (package -> channel ->
// bundle) that the *ValidationError unwraps to; its flat Problems list,
// which the CLI prints, is derived from them. Model.Warnings and
// AnalyzeChannel report the upgrade-graph findings that do not fail
// validation.
//
// ValidateDir checks a catalog directory package by package
// (declcfg.EachPackage), so the catalog is never held whole; WithModels
// hands each package's model to the caller as it is checked. ListPackages,
// ListChannels and ListBundles give the rows of opm's alpha list tables.
package model

package declcfg

import "testing"

// MixedCatalog and OPMOutputDirs give the external tests (model_ext_test.go)
// the catalogs the internal tests use.
var (
	MixedCatalog  = mixedCatalog
	OPMOutputDirs = func(t *testing.T) []string { return opmOutputDirs(t) }
)

// toModel converts cfg with model.FromDeclcfg (set by model_ext_test.go:
// package model imports declcfg, so an internal test cannot), returning
// the model and its number of packages.
var toModel func(cfg *DeclarativeConfig) (interface{ Validate() error }, int, error)

// SetToModel sets toModel.
func SetToModel(fn func(cfg *DeclarativeConfig) (interface{ Validate() error }, int, error)) {
	toModel = fn
}

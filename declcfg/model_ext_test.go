package declcfg_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/model"
)

// The model package imports declcfg, so declcfg's own (internal) tests
// reach it through toModel, set here, and the tests that compare
// model.ValidateDir with loading a directory live here.
func init() {
	declcfg.SetToModel(func(cfg *declcfg.DeclarativeConfig) (interface{ Validate() error }, int, error) {
		m, err := model.FromDeclcfg(cfg)
		if err != nil {
			return nil, 0, err
		}
		return m, len(m.Packages), nil
	})
}

func validateLoaded(dir string) (model.DirValidation, []model.Problem, error) {
	var res model.DirValidation
	cfg, err := declcfg.LoadDir(context.Background(), dir)
	if err != nil {
		return res, nil, err
	}
	res.Packages, res.Channels, res.Bundles = len(cfg.Packages), len(cfg.Channels), len(cfg.Bundles)
	m, err := model.FromDeclcfg(cfg)
	if err != nil {
		return res, nil, err
	}
	return res, m.Warnings(), nil
}

func TestValidateDirSameAsLoadAndConvert(t *testing.T) {
	invalid := declcfg.MixedCatalog(t)
	// Problems in several packages and files, interleaved in file order:
	// the report must come out in file order as model.FromDeclcfg sorts it.
	files := map[string]string{
		"a-all.json": `{"schema":"olm.package","name":"zeta","defaultChannel":"nope"}
{"schema":"olm.bundle","package":"alpha","name":"alpha.v9","image":"img/alpha:9","properties":[{"type":"olm.package","value":{"packageName":"alpha","version":"not-semver"}}]}
{"schema":"olm.channel","package":"ghost","name":"stable","entries":[{"name":"ghost.v1"}]}
{"schema":"olm.package","name":"zeta"}`,
		"c/alpha-more.json": `{"schema":"olm.channel","package":"alpha","name":"beta","entries":[{"name":"alpha.v1"},{"name":"alpha.v1"},{"name":"alpha.v2"}]}`,
	}
	for name, data := range files {
		require.NoError(t, os.WriteFile(filepath.Join(invalid, filepath.FromSlash(name)), []byte(data), 0o644))
	}
	// A load error found only by the full decode (a missing object ref)
	// after a file that the scan already rejects: LoadDir reports the first
	// in file order, whichever pass meets it.
	scanBad, decodeBad := declcfg.MixedCatalog(t), declcfg.MixedCatalog(t)
	require.NoError(t, os.WriteFile(filepath.Join(scanBad, "f", "bad.json"), []byte(`{"schema":"olm.package"`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(scanBad, "c", "bad.json"), []byte(`{"schema":"olm.bundle","package":"alpha","name":"b","properties":[{"type":"olm.bundle.object","value":{"ref":"missing.json"}}]}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(decodeBad, "f", "bad.json"), []byte(`{"schema":"olm.bundle","package":"aaa","name":"b","properties":[{"type":"olm.bundle.object","value":{"ref":"missing.json"}}]}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(decodeBad, "c", "bad.json"), []byte(`{"schema":"olm.bundle","package":"zeta","name":"b","properties":[{"type":"olm.bundle.object","value":{"ref":"missing.json"}}]}`), 0o644))

	for _, dir := range []string{scanBad, decodeBad} {
		_, err := model.ValidateDir(context.Background(), dir)
		require.ErrorContains(t, err, "c/bad.json", "the first bad file in file order")
	}
	_, err := model.ValidateDir(context.Background(), invalid)
	require.ErrorContains(t, err, "problems")

	dirs := append([]string{declcfg.MixedCatalog(t), invalid, scanBad, decodeBad, t.TempDir(), filepath.Join(t.TempDir(), "missing")}, declcfg.OPMOutputDirs(t)...)
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir), func(t *testing.T) {
			want, wantWarnings, wantErr := validateLoaded(dir)
			for _, n := range []int{1, 3} {
				var gotWarnings []model.Problem
				got, err := model.ValidateDir(context.Background(), dir, model.WithConcurrency(n),
					model.WithWarnings(func(p model.Problem) { gotWarnings = append(gotWarnings, p) }))
				if wantErr != nil {
					require.EqualError(t, err, wantErr.Error())
					var wantVE, gotVE *model.ValidationError
					if errors.As(wantErr, &wantVE) {
						require.ErrorAs(t, err, &gotVE)
						require.Equal(t, wantVE.Problems, gotVE.Problems)
						require.Equal(t, want.Packages, got.Packages)
						require.Equal(t, want.Bundles, got.Bundles)
					}
					continue
				}
				require.NoError(t, err)
				require.Equal(t, want, got)
				require.Equal(t, wantWarnings, gotWarnings)
			}
		})
	}
}

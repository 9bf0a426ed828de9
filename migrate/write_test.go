package migrate

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/declcfg"
)

// TestWriteStreamMatchesEncodingJSON checks declcfg's hand-written
// bundle encoder (declcfg.WriteStream) against encoding/json byte for byte
// on every fixture's converted packages, with every option that changes
// the blobs.
func TestWriteStreamMatchesEncodingJSON(t *testing.T) {
	for _, name := range fixtureNames(t) {
		for _, opts := range [][]Option{
			nil,
			{WithKeepDeprecated(true)},
			{WithMigrateLevel(MigrateLevelCSVMetadata)},
		} {
			cfg, _, err := Load(context.Background(), filepath.Join(fixturesDir, name, "index.db"), opts...)
			require.NoError(t, err, name)
			for _, pkg := range cfg.Packages {
				one := packageOnly(cfg, pkg.Name)
				var want bytes.Buffer
				require.NoError(t, encodePackageWithEncodingJSON(&want, one))
				var got bytes.Buffer
				require.NoError(t, declcfg.WriteStream(&got, one, declcfg.FormatJSON))
				assert.Equal(t, want.String(), got.String(), "%s/%s", name, pkg.Name)
			}
		}
	}
}

// encodePackageWithEncodingJSON writes one converted package (blobs in
// opm's order already) as opm does: encoding/json, four-space indent, no
// HTML escaping.
func encodePackageWithEncodingJSON(w io.Writer, cfg *declcfg.DeclarativeConfig) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	enc.SetEscapeHTML(false)
	var blobs []any
	for i := range cfg.Packages {
		blobs = append(blobs, &cfg.Packages[i])
	}
	for i := range cfg.Channels {
		blobs = append(blobs, &cfg.Channels[i])
	}
	for i := range cfg.Bundles {
		blobs = append(blobs, &cfg.Bundles[i])
	}
	for i := range cfg.Deprecations {
		blobs = append(blobs, &cfg.Deprecations[i])
	}
	for _, b := range blobs {
		if err := enc.Encode(b); err != nil {
			return err
		}
	}
	return nil
}

func packageOnly(cfg *declcfg.DeclarativeConfig, pkg string) *declcfg.DeclarativeConfig {
	out := &declcfg.DeclarativeConfig{}
	for _, p := range cfg.Packages {
		if p.Name == pkg {
			out.Packages = append(out.Packages, p)
		}
	}
	for _, c := range cfg.Channels {
		if c.Package == pkg {
			out.Channels = append(out.Channels, c)
		}
	}
	for _, b := range cfg.Bundles {
		if b.Package == pkg {
			out.Bundles = append(out.Bundles, b)
		}
	}
	for _, d := range cfg.Deprecations {
		if d.Package == pkg {
			out.Deprecations = append(out.Deprecations, d)
		}
	}
	return out
}

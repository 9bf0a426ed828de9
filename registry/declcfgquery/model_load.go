package declcfgquery

import (
	"context"
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg"
)

// loadModel reads and validates the catalog directory.
func loadModel(ctx context.Context, dir string) (*declcfg.Model, error) {
	cfg, err := declcfg.LoadDir(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("load catalog %s: %w", dir, err)
	}
	m, err := declcfg.ConvertToModel(cfg)
	if err != nil {
		return nil, fmt.Errorf("validate catalog %s: %w", dir, err)
	}
	return m, nil
}

package indexop

import (
	"fmt"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/internal/quote"
)

// PruneStranded returns the blobs of one package without its stranded
// bundles, as opm's prune-stranded left the database: bundles no
// channel holds, and every bundle when the package has no olm.package
// blob. It says what it dropped; pkg is not modified.
func PruneStranded(pkg *declcfg.DeclarativeConfig) (*declcfg.DeclarativeConfig, []string) {
	held := map[string]bool{}
	for _, ch := range pkg.Channels {
		for _, e := range ch.Entries {
			held[e.Name] = true
		}
	}
	out := *pkg
	out.Bundles = nil
	var dropped []string
	for _, b := range pkg.Bundles {
		switch {
		case len(pkg.Packages) == 0:
			dropped = append(dropped, fmt.Sprintf("removed stranded bundle %s: its package %s has no olm.package blob", quote.Name(b.Name), quote.Name(b.Package)))
		case !held[b.Name]:
			dropped = append(dropped, fmt.Sprintf("removed stranded bundle %s of package %s: no channel holds it", quote.Name(b.Name), quote.Name(b.Package)))
		default:
			out.Bundles = append(out.Bundles, b)
		}
	}
	return &out, dropped
}

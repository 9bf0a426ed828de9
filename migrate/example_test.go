package migrate_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/migrate"
)

// Migrate a legacy index and read the report: small-fbb-deprecated holds
// one deprecated bundle, which is left out (and listed) unless
// WithKeepDeprecated(true) is given.
func ExampleMigrate() {
	out, err := os.MkdirTemp("", "example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(out)
	rep, err := migrate.Migrate(context.Background(),
		"../fixtures/legacy/small-fbb-deprecated/index.db", filepath.Join(out, "catalog"))
	if err != nil {
		panic(err)
	}
	fmt.Printf("%+v\n", rep.Counts)
	for _, d := range rep.Drops {
		fmt.Println(d.Kind, d.Bundle)
	}
	// Output:
	// {Packages:3 Channels:4 Bundles:8 Objects:8 Deprecations:0}
	// deprecated-bundle foo.v0.2.0
}

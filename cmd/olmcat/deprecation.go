package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/operator-catalog/olmcat/input"
)

// noDeprecationWarningEnv silences the deprecation warning when set to a
// non-empty value other than "0" or "false" (for scripts). Environment
// variables are read here, in the CLI, never by the libraries.
const noDeprecationWarningEnv = "OLMCAT_NO_DEPRECATION_WARNING"

// suggestedOutputDir is the output directory the deprecation warning
// proposes for dbPath: "<name without extension>-catalog" beside it.
func suggestedOutputDir(dbPath string) string {
	if name, ok := input.ImageDirName(dbPath); ok {
		return name + "-catalog"
	}
	base := filepath.Base(dbPath)
	name := strings.TrimSuffix(base, filepath.Ext(base))
	if name == "" || name == "." {
		name = "index"
	}
	return filepath.Join(filepath.Dir(dbPath), name+"-catalog")
}

// migrateCommand is the exact command line that migrates dbPath, with
// the image flags in use (imageFlagArgs: an image is pulled as it was).
func migrateCommand(dbPath, imgArgs string) string {
	return fmt.Sprintf("olmcat migrate %s %s%s", shellQuote(dbPath), shellQuote(suggestedOutputDir(dbPath)), imgArgs)
}

// deprecationWarning is the warning printed by every command that opens a
// sqlite database: sqlite indexes are deprecated, here is how to migrate.
func deprecationWarning(dbPath, imgArgs string) string {
	return fmt.Sprintf("WARNING: %s is a legacy sqlite index. sqlite-based catalogs are deprecated and no longer supported by upstream opm.\n"+
		"  Migrate it to a declarative config catalog with:\n"+
		"    %s\n"+
		"  See MIGRATION.md for how to check parity and roll out. Set %s=1 or pass --no-deprecation-warning to silence this warning.\n",
		dbPath, migrateCommand(dbPath, imgArgs), noDeprecationWarningEnv)
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe
// characters, so the printed command can be pasted as is.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// imageFlagArgs are the image flags in use on the command line, to be
// repeated on the suggested commands that pull or push images.
func imageFlagArgs(fs *pflag.FlagSet) string {
	var args []string
	for _, name := range []string{"use-http", "skip-tls-verify", "ca-file", "registries-conf", "image-cache-dir", "no-image-cache", "platform"} {
		f := fs.Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		if f.Value.Type() == "bool" {
			if f.Value.String() == "true" {
				args = append(args, "--"+name)
			}
			continue
		}
		args = append(args, "--"+name+" "+shellQuote(f.Value.String()))
	}
	if f := fs.Lookup("skip-tls"); f != nil && f.Changed && f.Value.String() == "true" {
		args = append(args, "--use-http")
	}
	if len(args) == 0 {
		return ""
	}
	return " " + strings.Join(args, " ")
}

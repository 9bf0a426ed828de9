// Command olmtools stands in for the tools of OLM's image that OLM's pods
// run, by the name it is invoked as (the pod harness's OLM image links
// every name to it):
//
//   - copy-content --catalog.from=A --catalog.to=B [--cache.from=C --cache.to=D]:
//     OLM v0.46.0's cmd/copy-content, the extractContent init container's
//     copier: for the catalog pair, then the cache pair when given, it
//     removes the destination and copies the source tree (modes kept,
//     symlinks copied as links, new file times, the running user's
//     files); a missing source fails with exit 1, "failed to copy ...".
//   - cp [-R] [-v] SRC DST: what OLM's pods ask of coreutils' cp (a file,
//     or with -R a tree, to a new name; -v names the copy).
//   - cpb DIR: OLM's cmd/cpb, the unpack Job's bundle copier: the bundle
//     image's /manifests and /metadata into DIR.
//
// It is a test tool of the pod harness (internal/testutil/podrun).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

func main() {
	var err error
	switch name := filepath.Base(os.Args[0]); name {
	case "copy-content":
		err = copyContent(os.Args[1:])
	case "cp":
		err = cp(os.Args[1:])
	case "cpb":
		err = cpb(os.Args[1:])
	default:
		err = fmt.Errorf("olmtools: invoked as %q: want copy-content, cp or cpb", name)
	}
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
}

// copyContent is OLM's copy-content.
func copyContent(args []string) error {
	fl := flag.NewFlagSet("copy-content", flag.ContinueOnError)
	catalogFrom := fl.String("catalog.from", "", "catalog source")
	catalogTo := fl.String("catalog.to", "", "catalog destination")
	cacheFrom := fl.String("cache.from", "", "cache source")
	cacheTo := fl.String("cache.to", "", "cache destination")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *catalogFrom == "" || *catalogTo == "" {
		return errors.New("--catalog.from and --catalog.to are required")
	}
	if (*cacheFrom == "") != (*cacheTo == "") {
		return errors.New("--cache.from and --cache.to go together")
	}
	pairs := [][2]string{{*catalogFrom, *catalogTo}}
	if *cacheFrom != "" {
		pairs = append(pairs, [2]string{*cacheFrom, *cacheTo})
	}
	for _, p := range pairs {
		if err := os.RemoveAll(p[1]); err != nil {
			return fmt.Errorf("failed to remove %s: %v", p[1], err)
		}
		if err := copyTree(p[0], p[1]); err != nil {
			return fmt.Errorf("failed to copy %s to %s: %v", p[0], p[1], err)
		}
	}
	return nil
}

// cp is coreutils' cp for one source and a destination name.
func cp(args []string) error {
	fl := flag.NewFlagSet("cp", flag.ContinueOnError)
	recursive := fl.Bool("R", false, "copy directories recursively")
	verbose := fl.Bool("v", false, "name each copy")
	// -Rv as one argument, as OLM writes it.
	if len(args) > 0 && args[0] == "-Rv" {
		args = append([]string{"-R", "-v"}, args[1:]...)
	}
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 2 {
		return fmt.Errorf("cp: want SRC DST, got %q", fl.Args())
	}
	src, dst := fl.Arg(0), fl.Arg(1)
	st, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("cp: cannot stat '%s': %v", src, err)
	}
	if st.IsDir() && !*recursive {
		return fmt.Errorf("cp: -R not specified; omitting directory '%s'", src)
	}
	if err := copyTree(src, dst); err != nil {
		return fmt.Errorf("cp: %v", err)
	}
	if *verbose {
		fmt.Printf("'%s' -> '%s'\n", src, dst)
	}
	return nil
}

// cpb is OLM's cpb.
func cpb(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("cpb: want the destination directory, got %q", args)
	}
	for _, d := range []string{"/manifests", "/metadata"} {
		if err := copyTree(d, filepath.Join(args[0], filepath.Base(d))); err != nil {
			return fmt.Errorf("cpb: %v", err)
		}
	}
	return nil
}

// copyTree copies src (a file, a directory tree, a symlink) to dst:
// modes kept, symlinks as links, new times. Directories get their modes
// last, so that a read-only one is filled first.
func copyTree(src, dst string) error {
	type dirMode struct {
		path string
		mode fs.FileMode
	}
	var dirs []dirMode
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(target, out)
		case d.IsDir():
			dirs = append(dirs, dirMode{out, info.Mode().Perm()})
			return os.MkdirAll(out, 0o755)
		default:
			return copyFile(p, out, info.Mode().Perm())
		}
	})
	for i := len(dirs) - 1; i >= 0 && err == nil; i-- {
		err = os.Chmod(dirs[i].path, dirs[i].mode)
	}
	return err
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chmod(dst, mode)
}

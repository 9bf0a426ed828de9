package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
)

// ErrNotRegular is wrapped by the errors of Resolve (and so of Create and
// Write) for a destination that is not a regular file nor a symlink to
// one: a device, a fifo, a socket, or an open file descriptor
// (/proc/self/fd/N, /dev/stdout). Renaming a file over it would replace
// the node itself (a device node, a pipe somebody reads) instead of
// writing to it; a caller that can stream writes through it does,
// any other refuses it.
var ErrNotRegular = errors.New("not a regular file")

// procFD matches the directories of file descriptor links, whose targets
// are open files rather than paths: /proc/self/fd, /proc/123/task/4/fd.
var procFD = regexp.MustCompile(`^/proc/[^/]+(/task/[^/]+)?/fd$`)

// Resolve returns the regular file that writing dest replaces: dest
// itself when it is a regular file or does not exist, the file a symlink
// (or a chain of them) points to otherwise, so that a link is written
// through and never replaced by a file. Anything else wraps
// ErrNotRegular, and a symlink to nothing is an error too (where it
// leads is not a place the caller named).
func Resolve(dest string) (string, error) {
	cur, err := filepath.Abs(dest)
	if err != nil {
		return "", err
	}
	for hops := 0; ; hops++ {
		fi, err := os.Lstat(cur)
		if errors.Is(err, os.ErrNotExist) && hops == 0 {
			return dest, nil
		}
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s is a symlink to %s, which does not exist", dest, cur)
		}
		if err != nil {
			return "", err
		}
		switch {
		case fi.Mode().IsRegular() && hops == 0:
			return dest, nil
		case fi.Mode().IsRegular():
			return cur, nil
		case fi.IsDir():
			return "", fmt.Errorf("%s is a directory", dest)
		case fi.Mode()&os.ModeSymlink == 0:
			return "", fmt.Errorf("%s is a %s: %w", dest, nodeKind(fi.Mode()), ErrNotRegular)
		case hops == 40:
			return "", fmt.Errorf("%s: too many levels of symbolic links", dest)
		}
		dir, err := filepath.EvalSymlinks(filepath.Dir(cur))
		if err != nil {
			return "", err
		}
		if procFD.MatchString(dir) {
			return "", fmt.Errorf("%s is an open file descriptor: %w", dest, ErrNotRegular)
		}
		target, err := os.Readlink(cur)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		cur = target
	}
}

// nodeKind names a file mode that is neither regular, a directory nor a
// symlink.
func nodeKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "fifo"
	case m&os.ModeSocket != 0:
		return "socket"
	case m&os.ModeCharDevice != 0:
		return "character device"
	case m&os.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

package outdir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/operator-catalog/olmcat/internal/tempdir"
)

// Recover finishes the committed writes and removes the other temporary
// directories that killed runs left for out (beside it, and inside it
// for a mount point), and says what it did.
// A symlink out is followed, as Begin does.
func Recover(out string) ([]Swept, error) {
	out, err := resolve(out)
	if err != nil {
		return nil, err
	}
	var swept []Swept
	for _, where := range []string{filepath.Dir(out), out} {
		claimed, trashed, err := tempdir.Claim(where, Prefix(out))
		for _, dir := range trashed {
			swept = append(swept, Swept{Dir: dir, Output: out})
		}
		if err != nil {
			return swept, err
		}
		for i, d := range claimed {
			s := Swept{Dir: d.Path, Output: out}
			s.Finished, err = recoverOne(out, d.Path)
			if errors.Is(err, errLost) {
				s.Finished, s.Superseded, err = false, true, nil
			}
			if err == nil {
				err = d.Remove()
			}
			if err != nil {
				for _, rest := range claimed[i:] {
					rest.Release()
				}
				return swept, fmt.Errorf("recover %s from %s: %w", out, d.Path, err)
			}
			swept = append(swept, s)
		}
	}
	return swept, nil
}

// recoverOne finishes the commit the abandoned work directory records,
// if any (true: finished; errLost: another run's output won).
func recoverOne(out, work string) (bool, error) {
	rec, err := readRecord(work)
	if rec == nil || err != nil {
		return false, err
	}
	return true, finish(out, work, *rec)
}

// readRecord reads work's commit record (nil when there is none).
func readRecord(work string) (*record, error) {
	data, err := os.ReadFile(filepath.Join(work, recordFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("read commit record: %w", err)
	}
	return &rec, nil
}

// ErrUnfinished is matched (errors.Is) by FinishForRead's refusals: the
// directory has a commit in flight, and reading it would see half of it.
var ErrUnfinished = errors.New("unfinished commit")

type unfinishedError struct{ msg string }

func (e *unfinishedError) Error() string        { return e.msg }
func (e *unfinishedError) Is(target error) bool { return target == ErrUnfinished }

// FinishForRead is for a reader of dir: when a write of dir was committed
// but its moves are not all done (a run killed after its commit record),
// it finishes them (Recover) and says so, so that the reader sees the new
// content whole. When it cannot (no write access there), or the commit
// is the work of a run still going, it refuses with ErrUnfinished and
// names what finishes it. Nothing pending: nothing done.
func FinishForRead(dir string) ([]Swept, error) {
	dir = filepath.Clean(dir)
	if target, err := filepath.EvalSymlinks(dir); err == nil {
		dir = target
	}
	if len(pendingCommits(dir)) == 0 {
		return nil, nil
	}
	swept, err := Recover(dir)
	if err != nil && (errors.Is(err, os.ErrPermission) || errors.Is(err, syscall.EROFS)) {
		return swept, &unfinishedError{fmt.Sprintf("%s: a run that was killed committed a write of it and did not finish it (%s): not read half written; run olmcat validate %s as a user who can write there, which finishes it (%v)",
			dir, pendingCommits(dir)[0], dir, err)}
	}
	if err != nil {
		return swept, err
	}
	if pending := pendingCommits(dir); len(pending) > 0 {
		return swept, &unfinishedError{fmt.Sprintf("%s: another run is committing a write of it right now (%s): not read half written; retry once it is done", dir, pending[0])}
	}
	return swept, nil
}

// pendingCommits lists the temporary directories of dir (beside it and
// inside it) with a commit record whose moves are not all done.
func pendingCommits(dir string) []string {
	var pending []string
	for _, where := range []string{filepath.Dir(dir), dir} {
		ents, err := os.ReadDir(where)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if !e.IsDir() || !strings.HasPrefix(e.Name(), Prefix(dir)) || tempdir.IsTrash(e.Name()) {
				continue
			}
			work := filepath.Join(where, e.Name())
			if rec, err := readRecord(work); rec != nil || err != nil {
				if movesLeft(work, rec) {
					pending = append(pending, work)
				}
			}
		}
	}
	return pending
}

// movesLeft says whether the commit work records still has moves to do:
// its new content (or, for entries, some of it) is not all in place. An
// unreadable record counts as pending.
func movesLeft(work string, rec *record) bool {
	newPath := filepath.Join(work, newDir)
	if rec == nil || !rec.Entries {
		return exists(newPath)
	}
	ents, err := os.ReadDir(newPath)
	return (err != nil && !errors.Is(err, os.ErrNotExist)) || len(ents) > 0
}

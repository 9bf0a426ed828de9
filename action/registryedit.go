package action

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/operator-catalog/olmcat/declcfg"
	"github.com/operator-catalog/olmcat/declcfg/indexop"
)

// RegistryEdit applies an Edit as opm v1.73's registry add|rm|prune|
// prune-stranded|deprecatetruncate did, without writing a database:
// Database (a sqlite index, which is never written, or a catalog
// directory) is read and the declarative config written to Output, or
// without it to Database itself (see Target). Nothing is written unless
// every package was read, changed and validated.
type RegistryEdit struct {
	Env
	// Legacy is told of a legacy sqlite index read: before it is read,
	// and the report of its conversion (its repairs, drops and notes).
	Legacy   Legacy
	Database string
	// Output is the catalog directory written; "" writes Database.
	Output string
	// Force replaces an existing non-empty Output.
	Force bool
	Edit  Edit
}

// Target is where a RegistryEdit writes its result.
type Target int

// The targets.
const (
	TargetOutput  Target = iota // Output
	TargetNew                   // Database names nothing yet: a new catalog directory there
	TargetInPlace               // Database is a catalog directory: rewritten in place
)

// ErrSQLiteTarget is Target's refusal of a Database file (a sqlite
// index) without an Output.
var ErrSQLiteTarget = errors.New("a file is never written")

// RegistryEditResult is what a RegistryEdit did (told as it went,
// through the log).
type RegistryEditResult struct {
	Target Target
}

// Target is where the result goes. Without Output: ErrSQLiteTarget when
// Database is a file, another error when it cannot be a new catalog
// directory (its parent is missing).
func (r RegistryEdit) Target() (Target, error) {
	if r.Output != "" {
		return TargetOutput, nil
	}
	st, err := os.Stat(r.Database)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if _, perr := os.Stat(filepath.Dir(filepath.Clean(r.Database))); perr != nil {
			err = perr
			break
		}
		return TargetNew, nil
	case err == nil && st.IsDir():
		return TargetInPlace, nil
	case err == nil:
		return 0, usage("RegistryEdit.Output", ErrSQLiteTarget)
	}
	return 0, &Error{Option: "RegistryEdit.Database", Err: fmt.Errorf("%s: %w", r.Database, err)}
}

// Run takes the output's lock before Database is read (a second writer
// of the directory runs on this one's result), finishes or removes what
// killed runs left in a Database rewritten in place, then reads, applies
// and writes.
func (r RegistryEdit) Run(ctx context.Context) (RegistryEditResult, error) {
	target, err := r.Target()
	if err != nil {
		return RegistryEditResult{}, err
	}
	out, inputs := r.Database, []string(nil)
	if target == TargetOutput {
		out, inputs = r.Output, []string{r.Database}
	}
	release, err := r.lock(ctx, out, inputs...)
	if err != nil {
		return RegistryEditResult{}, err
	}
	defer release()
	if target == TargetInPlace {
		swept, err := declcfg.RecoverCatalog(r.Database)
		for _, s := range swept {
			r.log(s.String())
		}
		if err != nil {
			return RegistryEditResult{}, err
		}
	}
	src, err := openIndex(ctx, r.Env, r.Legacy, r.Database, r.Edit.newCatalogOK() || target == TargetNew)
	if err != nil {
		return RegistryEditResult{}, err
	}
	defer src.Close()
	op, err := r.Edit.op(ctx, r.Env, src)
	if err != nil {
		return RegistryEditResult{}, err
	}
	opts := []declcfg.WriteOption{declcfg.WithOnAbandonedRemoved(r.log)}
	switch target {
	case TargetNew:
		r.logf("writing a new catalog directory at %s", r.Database)
		err = indexop.Run(ctx, src.each, op, r.Database, append(opts, declcfg.WithInputs(src.inputs()...))...)
	case TargetInPlace:
		op.Check = keepsEverything(r.Database)
		err = indexop.Run(ctx, src.each, op, r.Database, append(opts, declcfg.WithForce(true))...)
	default:
		err = indexop.Run(ctx, src.each, op, r.Output, append(opts, declcfg.WithInputs(src.inputs()...), declcfg.WithForce(r.Force))...)
	}
	return RegistryEditResult{Target: target}, err
}

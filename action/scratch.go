package action

import "fmt"

// AbandonedNote is the line telling that temporary directory dir, which
// a killed run left, was removed.
func AbandonedNote(dir string) string {
	return fmt.Sprintf("removed abandoned temporary directory %s (left by an earlier run that was killed)", dir)
}

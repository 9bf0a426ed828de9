//go:build !crashtest

// Package crashpoint marks the steps of olmcat's write paths (every
// rename, every file written, every commit record) where a crash must
// leave a recoverable state. In normal builds Hit does nothing; a binary
// built with the crashtest tag kills itself with SIGKILL at the step the
// OLMCAT_CRASH_AT variable numbers, which is how the crash tests prove
// that a kill -9 at any step loses nothing.
package crashpoint

// Hit marks one step; what names it (for the crash tests' log).
func Hit(what string) {}

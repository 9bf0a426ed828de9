// Package strarena copies strings that live long into large shared
// blocks.
//
// A string kept from a decoded message or a database row is a small
// allocation among many that soon become garbage; kept one by one, such
// strings pin the runtime's spans they were cut from, so a heap that
// holds a few names per package of a large catalog can stay several times
// larger than what is live. Copied into an Arena they sit back to back
// in a few large blocks instead.
package strarena

import (
	"strings"
	"sync"
	"unsafe"
)

// blockSize is the size of an Arena's blocks; strings larger than a
// sixteenth of it are copied on their own.
const blockSize = 64 << 10

// Arena copies strings into shared blocks. The zero value is ready to
// use, and an Arena is safe for concurrent use. The copies live as long as
// any string of their block does.
type Arena struct {
	mu    sync.Mutex
	block []byte
}

// Clone returns a copy of s in the arena.
func (a *Arena) Clone(s string) string {
	switch {
	case s == "":
		return ""
	case len(s) > blockSize/16:
		return strings.Clone(s)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if cap(a.block)-len(a.block) < len(s) {
		a.block = make([]byte, 0, blockSize)
	}
	start := len(a.block)
	a.block = append(a.block, s...)
	return unsafe.String(&a.block[start], len(s))
}

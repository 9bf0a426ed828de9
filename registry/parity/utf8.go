package parity

import (
	"sync"
	"unicode/utf8"
	"unsafe"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/operator-catalog/olmcat/registry/api"
)

// wireable reports whether grpc could carry m: every string in it, nested
// ones included, is UTF-8 (proto3 strings must be; api.proto declares no
// other syntax). The answers' own types are read field by field, any
// other message through protoreflect (validUTF8): every in-process answer
// is checked, and walking a bundle through protoreflect took about as
// long as reading its bytes (BenchmarkWireable, typed against
// protoreflect). TestWireableSeesEveryString holds the field lists to
// api.proto. A bundle's manifests are checked through memo (nil: no
// memo).
func wireable(m proto.Message, memo *utf8Memo) bool {
	switch t := m.(type) {
	case *api.Bundle:
		return bundleUTF8(t, memo)
	case *api.Package:
		ok := allUTF8(t.GetName(), t.GetDefaultChannelName(), t.GetDeprecation().GetMessage())
		for _, c := range t.GetChannels() {
			ok = ok && allUTF8(c.GetName(), c.GetCsvName(), c.GetDeprecation().GetMessage())
		}
		return ok
	case *api.ChannelEntry:
		return allUTF8(t.GetPackageName(), t.GetChannelName(), t.GetBundleName(), t.GetReplaces())
	case *api.PackageName:
		return utf8.ValidString(t.GetName())
	}
	return validUTF8(m.ProtoReflect())
}

// bundleUTF8 is wireable for a bundle.
func bundleUTF8(b *api.Bundle, memo *utf8Memo) bool {
	ok := allUTF8(b.GetCsvName(), b.GetPackageName(), b.GetChannelName(), b.GetBundlePath(),
		b.GetVersion(), b.GetSkipRange(), b.GetReplaces(), b.GetDeprecation().GetMessage()) &&
		memo.valid(b.GetCsvJson()) && allUTF8(b.GetSkips()...)
	for _, o := range b.GetObject() {
		ok = ok && memo.valid(o)
	}
	for _, apis := range [][]*api.GroupVersionKind{b.GetProvidedApis(), b.GetRequiredApis()} {
		for _, a := range apis {
			ok = ok && allUTF8(a.GetGroup(), a.GetVersion(), a.GetKind(), a.GetPlural())
		}
	}
	for _, d := range b.GetDependencies() {
		ok = ok && allUTF8(d.GetType(), d.GetValue())
	}
	for _, p := range b.GetProperties() {
		ok = ok && allUTF8(p.GetType(), p.GetValue())
	}
	return ok
}

// utf8Memo remembers the long strings found to be UTF-8. Both servers
// keep a bundle's manifests in a cache and answer every call about the
// bundle with the same strings (GetBundle, GetBundleForChannel,
// GetBundleThatReplaces of each neighbour, the ListBundles share), and
// csvJson is one of the objects: a check would otherwise read a CSV's
// tens of kilobytes again for each. A string is known by the address and
// length of its bytes. The memo holds the string itself, so those bytes
// stay allocated, and cannot be reused for another string, while they
// are remembered; the strings served are immutable (the servers build
// them from fresh buffers). It forgets everything when what it holds
// would pass memoBudget. Safe for concurrent use; a nil memo remembers
// nothing.
type utf8Memo struct {
	mu    sync.Mutex
	seen  map[*byte]string
	bytes int
}

const (
	// memoMinLen is the shortest string remembered: shorter ones are
	// checked faster than looked up.
	memoMinLen = 1 << 10
	// memoBudget bounds the bytes the memo keeps allocated, as much as
	// one of the servers' manifest caches.
	memoBudget = 4 << 20
)

// valid reports whether s is UTF-8.
func (m *utf8Memo) valid(s string) bool {
	if m == nil || len(s) < memoMinLen {
		return utf8.ValidString(s)
	}
	p := unsafe.StringData(s)
	m.mu.Lock()
	kept, ok := m.seen[p]
	m.mu.Unlock()
	if ok && len(kept) == len(s) {
		return true
	}
	if !utf8.ValidString(s) {
		return false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seen == nil || m.bytes+len(s) > memoBudget {
		m.seen, m.bytes = map[*byte]string{}, 0
	}
	m.bytes += len(s) - len(m.seen[p])
	m.seen[p] = s
	return true
}

// allUTF8 reports whether every one of ss is UTF-8.
func allUTF8(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// validUTF8 reports whether every string in m, nested ones included, is
// UTF-8.
func validUTF8(m protoreflect.Message) bool {
	ok := true
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			for i := range v.List().Len() {
				ok = ok && utf8.ValidString(v.List().Get(i).String())
			}
		case fd.Kind() == protoreflect.StringKind:
			ok = utf8.ValidString(v.String())
		case fd.Message() != nil && fd.IsList():
			for i := range v.List().Len() {
				ok = ok && validUTF8(v.List().Get(i).Message())
			}
		case fd.Message() != nil && !fd.IsMap():
			ok = validUTF8(v.Message())
		}
		return ok
	})
	return ok
}

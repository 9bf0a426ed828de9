package parity

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/operator-catalog/olmcat/registry/api"
)

// wireable's field lists miss no string of the answers' types: each
// string field, at any depth, made not UTF-8 on its own, is refused, as
// proto.Marshal refuses it.
func TestWireableSeesEveryString(t *testing.T) {
	for _, m := range []proto.Message{&api.Bundle{}, &api.Package{}, &api.ChannelEntry{}, &api.PackageName{}} {
		require.True(t, wireable(m, nil), "empty %T", m)
		n := 0
		eachStringField(t, m.ProtoReflect(), func(field string) {
			n++
			_, err := proto.Marshal(m)
			require.Error(t, err, "marshal with %s not UTF-8", field)
			assert.False(t, wireable(m, nil), "%s not UTF-8", field)
		})
		assert.Positive(t, n, "%T has string fields", m)
		assert.True(t, wireable(m, nil), "%T after the fields were put back", m)
	}
}

// eachStringField sets each string field of m, and of the messages in
// it, to a value that is not UTF-8 in turn, calls check, and clears it.
func eachStringField(t *testing.T, m protoreflect.Message, check func(field string)) {
	t.Helper()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		switch {
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			l := m.Mutable(fd).List()
			l.Append(protoreflect.ValueOfString("ok"))
			l.Append(protoreflect.ValueOfString(notUTF8))
			check(string(fd.FullName()) + "[1]")
			m.Clear(fd)
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(notUTF8))
			check(string(fd.FullName()))
			m.Clear(fd)
		case fd.Message() != nil && fd.IsList():
			l := m.Mutable(fd).List()
			l.AppendMutable()
			eachStringField(t, l.AppendMutable().Message(), check)
			m.Clear(fd)
		case fd.Message() != nil:
			eachStringField(t, m.Mutable(fd).Message(), check)
			m.Clear(fd)
		}
	}
}

// BenchmarkWireable checks a bundle answer of the size parity's
// benchmark catalog serves (a 30 KB CSV, its objects, APIs and
// properties) field by field and through protoreflect.
func BenchmarkWireable(b *testing.B) {
	csv := strings.Repeat(`{"kind":"ClusterServiceVersion","spec":{"description":"x"}}`, 500)
	bundle := &api.Bundle{CsvName: "pkg.v1.0.0", PackageName: "pkg", ChannelName: "stable", CsvJson: csv,
		Object: []string{csv, `{"kind":"CustomResourceDefinition"}`}, BundlePath: "example.com/pkg:v1.0.0", Version: "1.0.0"}
	for i := range 3 {
		kind := []string{"A", "B", "C"}[i]
		bundle.ProvidedApis = append(bundle.ProvidedApis, &api.GroupVersionKind{Group: "example.com", Version: "v1", Kind: kind, Plural: "as"})
		bundle.Properties = append(bundle.Properties, &api.Property{Type: "olm.gvk", Value: `{"group":"example.com","kind":"` + kind + `","version":"v1"}`})
	}
	bundle.Dependencies = []*api.Dependency{{Type: "olm.gvk", Value: `{"group":"example.com","kind":"D","version":"v1"}`}}
	b.Run("typed", func(b *testing.B) {
		for range b.N {
			require.True(b, wireable(bundle, nil))
		}
	})
	b.Run("protoreflect", func(b *testing.B) {
		for range b.N {
			require.True(b, validUTF8(bundle.ProtoReflect()))
		}
	})
}

// utf8Memo answers as utf8.ValidString does, for every string: one it
// remembers, a prefix of it (same bytes, shorter: it may end inside a
// rune), an invalid one, and after it forgot everything at its budget.
func TestUTF8Memo(t *testing.T) {
	long := strings.Repeat("é", memoMinLen) // 2 bytes a rune
	cut := long[:len(long)-1]               // same address, ends inside a rune
	invalid := strings.Repeat("a", memoMinLen) + "\xff"
	short := "\xff"
	m := &utf8Memo{}
	for range 2 { // the second time from the memo
		assert.True(t, m.valid(long))
		assert.False(t, m.valid(cut))
		assert.False(t, m.valid(invalid))
		assert.False(t, m.valid(short))
	}
	assert.Len(t, m.seen, 1)
	assert.Equal(t, len(long), m.bytes)

	for i := range memoBudget/len(long) + 1 {
		s := strings.Repeat("x", len(long)-1) + string(rune('a'+i%26))
		assert.True(t, m.valid(s))
		assert.LessOrEqual(t, m.bytes, memoBudget)
	}
	assert.Less(t, len(m.seen), memoBudget/len(long)+1, "forgot what passed the budget")
	assert.True(t, (*utf8Memo)(nil).valid(long))
	assert.False(t, (*utf8Memo)(nil).valid(cut))
}

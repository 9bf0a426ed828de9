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
		require.True(t, wireable(m), "empty %T", m)
		n := 0
		eachStringField(t, m.ProtoReflect(), func(field string) {
			n++
			_, err := proto.Marshal(m)
			require.Error(t, err, "marshal with %s not UTF-8", field)
			assert.False(t, wireable(m), "%s not UTF-8", field)
		})
		assert.Positive(t, n, "%T has string fields", m)
		assert.True(t, wireable(m), "%T after the fields were put back", m)
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
			require.True(b, wireable(bundle))
		}
	})
	b.Run("protoreflect", func(b *testing.B) {
		for range b.N {
			require.True(b, validUTF8(bundle.ProtoReflect()))
		}
	})
}

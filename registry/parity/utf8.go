package parity

import (
	"unicode/utf8"

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
// api.proto.
func wireable(m proto.Message) bool {
	switch t := m.(type) {
	case *api.Bundle:
		return bundleUTF8(t)
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
func bundleUTF8(b *api.Bundle) bool {
	ok := allUTF8(b.GetCsvName(), b.GetPackageName(), b.GetChannelName(), b.GetCsvJson(), b.GetBundlePath(),
		b.GetVersion(), b.GetSkipRange(), b.GetReplaces(), b.GetDeprecation().GetMessage()) &&
		allUTF8(b.GetObject()...) && allUTF8(b.GetSkips()...)
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

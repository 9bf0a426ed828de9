package legacyquery

// Reusable helpers to compare gRPC answers with the recorded answers of
// the real servers (fixtures/legacy/<db>/grpc/<backend>/<RPC>-<args>.json):
//   - a recorded answer is a stream of pretty-printed protojson messages
//     (one per streamed message, one for a unary answer);
//   - an error answer is an empty .json plus <name>.json.err holding
//     grpcurl's "ERROR:\n  Code: Unknown\n  Message: <text>";
//   - messages are compared as data (protocmp) after sorting every list
//     the servers left in unspecified order (registry-grpc-api.md §9).

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/testing/protocmp"

	"github.com/operator-catalog/olmcat/registry/api"
)

// answer is one recorded RPC answer: messages, or an error.
type answer struct {
	msgs []json.RawMessage
	// errCode and errMsg are set when the server answered with an error.
	errCode string
	errMsg  string
}

// readAnswer reads a recorded answer file (and its .err sibling).
func readAnswer(t testing.TB, path string) answer {
	t.Helper()
	var a answer
	b, err := os.ReadFile(path + ".err")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(line)
			if v, ok := strings.CutPrefix(line, "Code: "); ok {
				a.errCode = v
			}
			if v, ok := strings.CutPrefix(line, "Message: "); ok {
				a.errMsg = v
			}
		}
		require.NotEmpty(t, a.errMsg, "read %s.err: no Message line", path)
		return a
	}
	require.ErrorIs(t, err, os.ErrNotExist)
	b, err = os.ReadFile(path)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		require.NoError(t, err, "read %s: message %d", path, len(a.msgs)+1)
		a.msgs = append(a.msgs, raw)
	}
	return a
}

// decodeAll unmarshals recorded messages into fresh messages of type T.
func decodeAll[T proto.Message](raws []json.RawMessage, newT func() T) ([]T, error) {
	out := make([]T, 0, len(raws))
	for i, r := range raws {
		m := newT()
		if err := protojson.Unmarshal(r, m); err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
		out = append(out, m)
	}
	return out, nil
}

// collect drains a server stream.
func collect[T any](recv func() (T, error)) ([]T, error) {
	var out []T
	for {
		m, err := recv()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, m)
	}
}

// errorMismatch says how a call's error differs from the recorded one
// ("" when equal). Only the message is compared: both real servers
// answer "not found" with code Unknown, which the recording also states.
func errorMismatch(want answer, got error) string {
	if want.errMsg == "" {
		if got != nil {
			return fmt.Sprintf("unexpected error: %v", got)
		}
		return ""
	}
	if got == nil {
		return fmt.Sprintf("no error, want %q", want.errMsg)
	}
	st := status.Convert(got)
	if want.errCode != "" && st.Code().String() != want.errCode {
		return fmt.Sprintf("code %s, want %s", st.Code(), want.errCode)
	}
	if st.Message() != want.errMsg {
		return fmt.Sprintf("message %q, want %q", st.Message(), want.errMsg)
	}
	return ""
}

// normBundle sorts the lists of a bundle whose order sqlite left to row
// order or group_concat: properties, dependencies, APIs, skips. object
// keeps its order (the bundle column's order is stable).
func normBundle(b *api.Bundle) *api.Bundle {
	b = proto.Clone(b).(*api.Bundle)
	sort.SliceStable(b.Properties, func(i, j int) bool {
		x, y := b.Properties[i], b.Properties[j]
		return x.Type+"\x00"+x.Value < y.Type+"\x00"+y.Value
	})
	sort.SliceStable(b.Dependencies, func(i, j int) bool {
		x, y := b.Dependencies[i], b.Dependencies[j]
		return x.Type+"\x00"+x.Value < y.Type+"\x00"+y.Value
	})
	gvkLess := func(s []*api.GroupVersionKind) func(i, j int) bool {
		return func(i, j int) bool {
			x, y := s[i], s[j]
			return strings.Join([]string{x.Group, x.Version, x.Kind, x.Plural}, "\x00") <
				strings.Join([]string{y.Group, y.Version, y.Kind, y.Plural}, "\x00")
		}
	}
	sort.SliceStable(b.ProvidedApis, gvkLess(b.ProvidedApis))
	sort.SliceStable(b.RequiredApis, gvkLess(b.RequiredApis))
	sort.Strings(b.Skips)
	return b
}

// normBundles normalises every bundle and sorts the stream by
// (csvName, packageName, channelName).
func normBundles(in []*api.Bundle) []*api.Bundle {
	out := make([]*api.Bundle, len(in))
	for i, b := range in {
		out[i] = normBundle(b)
	}
	sort.SliceStable(out, func(i, j int) bool {
		x, y := out[i], out[j]
		return x.CsvName+"\x00"+x.PackageName+"\x00"+x.ChannelName < y.CsvName+"\x00"+y.PackageName+"\x00"+y.ChannelName
	})
	return out
}

// normPackage sorts a package's channels by name.
func normPackage(p *api.Package) *api.Package {
	p = proto.Clone(p).(*api.Package)
	sort.SliceStable(p.Channels, func(i, j int) bool { return p.Channels[i].Name < p.Channels[j].Name })
	return p
}

// normEntries sorts channel entries by all their fields.
func normEntries(in []*api.ChannelEntry) []*api.ChannelEntry {
	out := append([]*api.ChannelEntry(nil), in...)
	key := func(e *api.ChannelEntry) string {
		return strings.Join([]string{e.PackageName, e.ChannelName, e.BundleName, e.Replaces}, "\x00")
	}
	sort.SliceStable(out, func(i, j int) bool { return key(out[i]) < key(out[j]) })
	return out
}

// normNames sorts package names.
func normNames(in []*api.PackageName) []*api.PackageName {
	out := append([]*api.PackageName(nil), in...)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// diff compares two message lists as data ("" when equal).
func diff[T proto.Message](want, got []T) string {
	return cmp.Diff(want, got, protocmp.Transform())
}

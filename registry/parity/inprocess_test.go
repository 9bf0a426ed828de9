package parity

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/operator-catalog/olmcat/registry/api"
)

// Served in process or over loopback gRPC, every fixture's check gives
// the same result: the in-process client changes nothing but the cost.
func TestInProcessMatchesLoopback(t *testing.T) {
	for _, name := range fixtureNames(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			wire, err := Check(ctx, fixtureDB(name), fixtureOPM(name), WithLoopback(true))
			require.NoError(t, err)
			local, err := Check(ctx, fixtureDB(name), fixtureOPM(name))
			require.NoError(t, err)
			assert.Equal(t, wire.Stats, local.Stats)
			assert.Equal(t, wire.RulesSeen, local.RulesSeen)
			assert.Equal(t, wire.Graph, local.Graph)
			assert.Equal(t, wire.Diffs, local.Diffs)
		})
	}
}

// An answer the wire cannot carry is grpc's marshalling error in process
// too: exactly the messages proto.Marshal refuses.
func TestInProcessRefusesWhatTheWireCannotCarry(t *testing.T) {
	bad := string([]byte{0xff, 0xfe})
	tests := []struct {
		name string
		m    proto.Message
	}{
		{"valid", &api.Bundle{CsvName: "a", Skips: []string{"b"}, Properties: []*api.Property{{Type: "t", Value: "{}"}}}},
		{"top-level string", &api.Bundle{CsvJson: bad}},
		{"repeated string", &api.Bundle{Skips: []string{"ok", bad}}},
		{"nested message", &api.Bundle{Properties: []*api.Property{{Type: "t", Value: bad}}}},
		{"single nested message", &api.Package{Deprecation: &api.Deprecation{Message: bad}}},
		{"list of nested messages", &api.Package{Channels: []*api.Channel{{Name: "c", CsvName: bad}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, marshalErr := proto.Marshal(tt.m)
			err := wireable(tt.m)
			assert.Equal(t, marshalErr != nil, err != nil, "wireable agrees with proto.Marshal")
			if err != nil {
				assert.Equal(t, codes.Internal, status.Code(err))
			}
		})
	}
}

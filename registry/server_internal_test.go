package registry

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestRPCError(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		code codes.Code
		msg  string
	}{
		{"plain error stays Unknown", errors.New(`package "x" not found`), codes.Unknown, `package "x" not found`},
		{"canceled", fmt.Errorf("read: %w", context.Canceled), codes.Canceled, "read: context canceled"},
		{"deadline", fmt.Errorf("read: %w", context.DeadlineExceeded), codes.DeadlineExceeded, "read: context deadline exceeded"},
		{"status kept", status.Error(codes.InvalidArgument, "bad"), codes.InvalidArgument, "bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := rpcError(tc.err)
			st := status.Convert(got)
			require.Equal(t, tc.code, st.Code())
			require.Equal(t, tc.msg, st.Message())
		})
	}
	require.NoError(t, rpcError(nil))
}

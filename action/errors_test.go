package action_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/operator-catalog/olmcat/action"
)

// TestKindOf: an error not marked is KindFailed; a marked one keeps its
// kind through wrapping, and its text is its cause's.
func TestKindOf(t *testing.T) {
	usage := &action.Error{Kind: action.KindUsage, Option: "Add.Mode", Err: errors.New("bad mode")}
	for _, tc := range []struct {
		err  error
		kind action.Kind
	}{
		{errors.New("plain"), action.KindFailed},
		{usage, action.KindUsage},
		{fmt.Errorf("context: %w", usage), action.KindUsage},
		{&action.Error{Kind: action.KindPartial, Err: errors.New("half")}, action.KindPartial},
	} {
		require.Equal(t, tc.kind, action.KindOf(tc.err), "%v", tc.err)
	}
	require.Equal(t, "bad mode", usage.Error())
	require.ErrorIs(t, fmt.Errorf("context: %w", usage), usage.Err)
}

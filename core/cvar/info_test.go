package cvar

import (
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestNewInfo(t *testing.T) {
	long := strings.Repeat("x", MaxString+10)
	tests := []struct {
		name, value, want string
	}{
		{"a list", "tcp;ofi_rxm tcp", "tcp;ofi_rxm tcp"},
		{"nothing found", "none", "none"},
		{"cut to what MPI_T returns", long, long[:MaxString-3] + "..."},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			name := fmt.Sprintf("mpix_test_info_%d", i)
			t.Setenv(name, "from the environment") // never read
			var calls atomic.Int32
			v := NewInfo(name, "what a test found", func() string { calls.Add(1); return tc.value })
			require.Equal(t, int32(0), calls.Load(), "computed before the first read")
			require.NoError(t, Load(), "MPI_Init's Load")
			require.Equal(t, int32(0), calls.Load(), "Load computed an information variable")
			require.Equal(t, tc.want, v.Get())
			require.Equal(t, tc.want, v.Text())
			require.Equal(t, int32(1), calls.Load(), "computed once")
			require.Equal(t, ScopeConstant, v.Scope())
			require.Equal(t, KindString, v.Kind())
			require.Equal(t, Info, v.Category())
			require.Contains(t, Info.Cvars(), v.Index())
			got, ok := Lookup(name)
			require.True(t, ok)
			require.Equal(t, v.Var, got)
			require.True(t, errors.Is(v.SetString("y"), ErrSetNever), "an information variable was written")
			require.Equal(t, tc.want, v.Get())
		})
	}
}

func TestNewInfoNeedsLowerCaseName(t *testing.T) {
	require.Panics(t, func() { NewInfo("MPIX_TEST_INFO", "d", func() string { return "" }) })
	require.Panics(t, func() { NewInfo("mpix_test_info_nodesc", "", func() string { return "" }) })
}

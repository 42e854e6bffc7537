package cvar

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

var (
	testCat  = NewCategory("mpix_test", "variables of the tests", Root)
	testSeq  atomic.Int64
	testSpec = Spec{Desc: "a test variable", Verbosity: UserBasic, Scope: ScopeLocal, Category: testCat, Mutability: Anytime}
)

// fresh registers a variable with a unique name; env, if not nil, is its environment value.
func fresh(t *testing.T, kind Kind, s Spec, env *string) *Var {
	t.Helper()
	s.Name = fmt.Sprintf("MPIX_TEST_%d", testSeq.Add(1))
	if env != nil {
		t.Setenv(s.Name, *env)
	}
	switch kind {
	case KindInt:
		return NewInt(s).Var
	case KindBool:
		return NewBool(s).Var
	}
	return NewString(s).Var
}

func str(s string) *string { return &s }

// unfreeze lets a test write BeforeInit variables as if MPI_Init had not run.
func setFrozen(t *testing.T, f bool) {
	mu.Lock()
	old := frozen
	frozen = f
	mu.Unlock()
	t.Cleanup(func() { mu.Lock(); frozen = old; mu.Unlock() })
}

func TestEnvironment(t *testing.T) {
	tests := []struct {
		name     string
		kind     Kind
		def      string
		min, max int64
		env      *string
		want     string // Text()
		wantNum  int64
		wantErr  string // substring of Load's error for this variable
	}{
		{name: "int default", kind: KindInt, def: "200", want: "200", wantNum: 200},
		{name: "int from env", kind: KindInt, def: "200", env: str("123"), want: "123", wantNum: 123},
		{name: "int spaces", kind: KindInt, def: "1", env: str(" 7 "), want: "7", wantNum: 7},
		{name: "int negative allowed", kind: KindInt, def: "0", env: str("-5"), want: "-5", wantNum: -5},
		{name: "int below min", kind: KindInt, def: "3", min: 0, max: 10, env: str("-1"), want: "3", wantNum: 3, wantErr: "want an integer from 0 to 10"},
		{name: "int above max", kind: KindInt, def: "3", min: 0, max: 10, env: str("11"), want: "3", wantNum: 3, wantErr: "want an integer from 0 to 10"},
		{name: "int not a number", kind: KindInt, def: "3", env: str("abc"), want: "3", wantNum: 3, wantErr: `="abc": invalid value: want an integer`},
		{name: "int beyond MPI_INT", kind: KindInt, def: "3", env: str("4294967296"), want: "3", wantNum: 3, wantErr: "want an integer"},
		{name: "bool default", kind: KindBool, def: "1", want: "1", wantNum: 1},
		{name: "bool 0", kind: KindBool, def: "1", env: str("0"), want: "0", wantNum: 0},
		{name: "bool true", kind: KindBool, def: "0", env: str("true"), want: "1", wantNum: 1},
		{name: "bool bad", kind: KindBool, def: "1", env: str("yes"), want: "1", wantNum: 1, wantErr: "want 0 or 1"},
		{name: "string default empty", kind: KindString, def: "", want: ""},
		{name: "string from env", kind: KindString, def: "", env: str("tcp;ofi_rxm"), want: "tcp;ofi_rxm"},
		{name: "string empty env", kind: KindString, def: "x", env: str(""), want: ""},
		{name: "string too long", kind: KindString, def: "x", env: str(strings.Repeat("a", MaxString+1)), want: "x", wantErr: "at most 255"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpec
			s.Default, s.Min, s.Max = tc.def, tc.min, tc.max
			v := fresh(t, tc.kind, s, tc.env)
			require.Equal(t, tc.want, v.Text())
			require.Equal(t, tc.wantNum, v.Int64())
			err := Load()
			if tc.wantErr == "" {
				if err != nil {
					require.NotContains(t, err.Error(), v.Name()+"=")
				}
				return
			}
			require.ErrorContains(t, err, v.Name()+"=")
			require.ErrorContains(t, err, tc.wantErr)
			require.ErrorIs(t, err, ErrInvalidValue)
			// An explicit value replaces the bad one, and the error goes.
			if tc.kind == KindString {
				require.NoError(t, v.SetString("ok"))
			} else {
				require.NoError(t, v.SetInt64(1))
			}
			if err := Load(); err != nil {
				require.NotContains(t, err.Error(), v.Name()+"=")
			}
		})
	}
}

// The environment is read on first use, not at registration and not again later.
func TestReadOnFirstUse(t *testing.T) {
	s := testSpec
	s.Default = "1"
	v := fresh(t, KindInt, s, nil)
	t.Setenv(v.Name(), "2")
	require.Equal(t, 2, Int{v}.Get())
	t.Setenv(v.Name(), "3")
	require.Equal(t, 2, Int{v}.Get())
}

func TestSet(t *testing.T) {
	tests := []struct {
		name   string
		kind   Kind
		mut    Mutability
		frozen bool
		set    any // int64 or string
		want   string
		err    error
	}{
		{name: "anytime int", kind: KindInt, mut: Anytime, frozen: true, set: int64(7), want: "7"},
		{name: "before init, not yet", kind: KindInt, mut: BeforeInit, set: int64(7), want: "7"},
		{name: "before init, too late", kind: KindInt, mut: BeforeInit, frozen: true, set: int64(7), want: "5", err: ErrSetNotNow},
		{name: "fixed", kind: KindInt, mut: Fixed, set: int64(7), want: "5", err: ErrSetNever},
		{name: "fixed after init", kind: KindInt, mut: Fixed, frozen: true, set: int64(7), want: "5", err: ErrSetNever},
		{name: "int out of range", kind: KindInt, mut: Anytime, set: int64(11), want: "5", err: ErrInvalidValue},
		{name: "int given a string", kind: KindInt, mut: Anytime, set: "7", want: "5", err: ErrInvalidValue},
		{name: "bool non-zero is 1", kind: KindBool, mut: Anytime, set: int64(7), want: "1"},
		{name: "bool 0", kind: KindBool, mut: Anytime, set: int64(0), want: "0"},
		{name: "string", kind: KindString, mut: Anytime, set: "verbs;ofi_rxm", want: "verbs;ofi_rxm"},
		{name: "string given an int", kind: KindString, mut: Anytime, set: int64(1), want: "5", err: ErrInvalidValue},
		{name: "string too long", kind: KindString, mut: Anytime, set: string(make([]byte, 300)), want: "5", err: ErrInvalidValue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpec
			s.Default, s.Mutability, s.Min, s.Max = "5", tc.mut, 0, 10
			if tc.kind == KindBool {
				s.Default = "1"
				if tc.err != nil {
					tc.want = "1"
				}
			}
			v := fresh(t, tc.kind, s, nil)
			setFrozen(t, tc.frozen)
			var err error
			switch x := tc.set.(type) {
			case int64:
				err = v.SetInt64(x)
			case string:
				err = v.SetString(x)
			}
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				require.ErrorIs(t, v.Settable(), settableErr(tc.err))
			} else {
				require.NoError(t, err)
				require.NoError(t, v.Settable())
			}
			require.Equal(t, tc.want, v.Text())
		})
	}
}

// settableErr is what Settable reports when a write failed with err.
func settableErr(err error) error {
	if errors.Is(err, ErrInvalidValue) {
		return nil // the variable is settable; the value was wrong
	}
	return err
}

// A write before the first read is not overwritten by the environment.
func TestSetBeforeFirstRead(t *testing.T) {
	s := testSpec
	s.Default = "1"
	v := fresh(t, KindInt, s, str("9"))
	require.NoError(t, v.SetInt64(4))
	require.Equal(t, int64(4), v.Int64())
}

func TestRegistry(t *testing.T) {
	before := Stamp()
	nvars := len(All())
	v := fresh(t, KindString, testSpec, nil)
	require.Greater(t, Stamp(), before)
	all := All()
	require.Len(t, all, nvars+1)
	require.Same(t, v, all[len(all)-1])
	require.Equal(t, len(all)-1, v.Index())
	for i, x := range all {
		require.Equal(t, i, x.Index())
		got, ok := ByIndex(i)
		require.True(t, ok)
		require.Same(t, x, got)
		got, ok = Lookup(x.Name())
		require.True(t, ok)
		require.Same(t, x, got)
		require.Contains(t, x.Category().Cvars(), i)
	}
	for _, i := range []int{-1, len(all)} {
		_, ok := ByIndex(i)
		require.False(t, ok)
	}
	_, ok := Lookup("MPIX_NO_SUCH_VARIABLE")
	require.False(t, ok)
	require.Panics(t, func() {
		NewInt(Spec{Name: v.Name(), Desc: "d", Default: "0", Verbosity: UserBasic, Scope: ScopeLocal, Category: testCat})
	})
	require.Panics(t, func() {
		NewInt(Spec{Name: "MPIX_TEST_BAD_DEFAULT", Desc: "d", Default: "x", Verbosity: UserBasic, Scope: ScopeLocal, Category: testCat})
	})
	require.Panics(t, func() {
		NewBool(Spec{Name: "NOT_MPIX", Desc: "d", Default: "0", Verbosity: UserBasic, Scope: ScopeLocal, Category: testCat})
	})
	require.Panics(t, func() {
		NewBool(Spec{Name: "MPIX_TEST_NO_CAT", Desc: "d", Default: "0", Verbosity: UserBasic, Scope: ScopeLocal})
	})
}

func TestCategories(t *testing.T) {
	cats := Categories()
	require.NotEmpty(t, cats)
	require.Same(t, Root, cats[0])
	for i, c := range cats {
		require.Equal(t, i, c.Index())
		got, ok := CategoryByIndex(i)
		require.True(t, ok)
		require.Same(t, c, got)
		got, ok = LookupCategory(c.Name())
		require.True(t, ok)
		require.Same(t, c, got)
		require.NotEmpty(t, c.Desc())
	}
	_, ok := CategoryByIndex(len(cats))
	require.False(t, ok)
	require.Subset(t, Root.Subcategories(), []int{Transport.Index(), Progress.Index(), VCI.Index(), testCat.Index()})
	require.Panics(t, func() { NewCategory(Root.Name(), "again", nil) })

	before := Stamp()
	sub := NewCategory(fmt.Sprintf("mpix_test_sub_%d", testSeq.Add(1)), "sub", testCat)
	sub.AddPvar(3)
	require.Equal(t, []int{3}, sub.Pvars())
	require.Contains(t, testCat.Subcategories(), sub.Index())
	require.Greater(t, Stamp(), before+1)
}

// The knobs exist with the documented types, defaults and attributes, and their
// defaults parse; in a clean environment they read as their defaults.
func TestKnobs(t *testing.T) {
	tests := []struct {
		v     *Var
		kind  Kind
		def   string
		cat   *Category
		scope Scope
	}{
		{SHM.Var, KindBool, "1", Transport, ScopeAllEq},
		{OFIProvider.Var, KindString, "", Transport, ScopeAllEq},
		{SpinPolls.Var, KindInt, "200", Progress, ScopeLocal},
		{NumVCIs.Var, KindInt, "0", VCI, ScopeAllEq},
		{GlobalProgressInterval.Var, KindInt, "256", Progress, ScopeLocal},
	}
	for _, tc := range tests {
		t.Run(tc.v.Name(), func(t *testing.T) {
			require.Equal(t, tc.kind, tc.v.Kind())
			require.Equal(t, tc.def, tc.v.Default())
			require.Same(t, tc.cat, tc.v.Category())
			require.Equal(t, tc.scope, tc.v.Scope())
			require.Equal(t, BeforeInit, tc.v.Mutability())
			require.NotEmpty(t, tc.v.Desc())
			lo, hi := tc.v.Range()
			require.LessOrEqual(t, lo, hi)
			require.GreaterOrEqual(t, lo, int64(math.MinInt32))
			require.LessOrEqual(t, hi, int64(math.MaxInt32))
			if _, set := lookupEnvForTest(tc.v.Name()); !set {
				require.Equal(t, tc.def, tc.v.Text())
			}
		})
	}
	require.True(t, SHM.Get() || SHM.Text() == "0")
	require.GreaterOrEqual(t, SpinPolls.Get(), 0)
	require.Equal(t, OFIProvider.Text(), OFIProvider.Get())
}

// Reads are atomic: readers racing a writer see old or new values, never a torn one
// (run with -race).
func TestConcurrentReadWrite(t *testing.T) {
	s := testSpec
	s.Default = "x"
	sv := fresh(t, KindString, s, nil)
	s.Default, s.Min, s.Max = "0", 0, 1000
	iv := fresh(t, KindInt, s, nil)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if got := (String{sv}).Get(); got != "x" && got != "yyyy" {
					t.Errorf("torn string %q", got)
				}
				if n := (Int{iv}).Get(); n < 0 || n > 1000 {
					t.Errorf("int %d out of range", n)
				}
			}
		}()
	}
	for i := range 1000 {
		require.NoError(t, iv.SetInt64(int64(i)))
		require.NoError(t, sv.SetString([]string{"x", "yyyy"}[i%2]))
	}
	close(stop)
	wg.Wait()
}

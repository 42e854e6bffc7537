// Package cvar is the single source of truth for mpix's configuration: every MPIX_*
// environment variable the library reads is registered here once, with its type,
// default, documentation and MPI_T attributes, and is read through this package.
// MPI_T shows the registered variables as control variables and the categories
// defined here as its category tree (core/pvar adds performance variables to it).
//
// A variable is read from the environment the first time anything asks for it; after
// that a read is one or two atomic loads, so hot paths may call the typed getters
// (Int.Get, Bool.Get, String.Get) directly. MPI_T_cvar_write changes a value through
// Var.SetInt64 or Var.SetString, within what the variable's Mutability allows.
// Registration appends: a variable's index never changes, as MPI_T requires.
package cvar

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Kind is the type of a variable's value.
type Kind int

const (
	KindInt    Kind = iota // an int (MPI_INT through MPI_T)
	KindBool               // 0 or 1 (MPI_INT through MPI_T)
	KindString             // text of at most MaxString bytes (MPI_CHAR through MPI_T)
)

func (k Kind) String() string {
	switch k {
	case KindInt:
		return "int"
	case KindBool:
		return "bool"
	case KindString:
		return "string"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Verbosity is who a variable is for; the values are MPI_T_VERBOSITY_*.
type Verbosity int

const (
	UserBasic Verbosity = 221 + iota
	UserDetail
	UserAll
	TunerBasic
	TunerDetail
	TunerAll
	MPIDevBasic
	MPIDevDetail
	MPIDevAll
)

// Scope says how far a change of a variable reaches; the values are MPI_T_SCOPE_*.
type Scope int

const (
	ScopeConstant Scope = 60438 + iota // never changes
	ScopeReadonly                      // changes, but not through MPI_T
	ScopeLocal                         // each process may have its own value
	ScopeGroup                         // processes of a group change it together
	ScopeGroupEq                       // ... and must agree on the value
	ScopeAll                           // all processes change it together
	ScopeAllEq                         // ... and must agree on the value
)

// Mutability says when MPI_T_cvar_write may change a variable.
type Mutability int

const (
	// Fixed variables come from the environment only.
	Fixed Mutability = iota
	// BeforeInit variables are read once by MPI_Init (see Freeze); they can be
	// written until then.
	BeforeInit
	// Anytime variables are read on every use; a write takes effect at the next Get.
	Anytime
)

// MaxString is the longest value a string variable holds: MPI_T gives string
// variables a count of MaxString+1 characters, the terminating NUL included.
const MaxString = 255

// Errors of Var.SetInt64 and Var.SetString, wrapped with details.
var (
	ErrSetNever     = errors.New("variable can never be set")
	ErrSetNotNow    = errors.New("variable cannot be set now")
	ErrInvalidValue = errors.New("invalid value")
)

// Spec describes a variable for NewInt, NewBool and NewString.
type Spec struct {
	Name       string // the environment variable, MPIX_...
	Desc       string // one sentence for MPI_T and tools
	Default    string // in the environment's syntax ("" for an empty string)
	Verbosity  Verbosity
	Scope      Scope
	Category   *Category
	Mutability Mutability
	// Min and Max bound an int variable; both zero means any value an MPI_INT holds.
	Min, Max int64
}

// Var is a registered variable. Its description is immutable; its value is read
// and written atomically.
type Var struct {
	spec  Spec
	kind  Kind
	index int

	loaded atomic.Bool
	num    atomic.Int64           // int and bool values
	str    atomic.Pointer[string] // string values
	envErr error                  // a bad environment value (guarded by mu)

	info *infoValue // set for NewInfo's variables, which no environment variable sets
}

// The registry. mu serializes registration, loading, writes and Freeze; readers of a
// loaded variable never take it.
var (
	mu        sync.Mutex
	vars      []*Var
	byName    = map[string]*Var{}
	cats      []*Category
	catByName = map[string]*Category{}
	stamp     atomic.Int64 // bumped whenever something is registered (MPI_T_category_changed)
	frozen    bool         // MPI_Init has read the BeforeInit variables
)

// Int is a registered int variable.
type Int struct{ *Var }

// Bool is a registered boolean variable.
type Bool struct{ *Var }

// String is a registered string variable.
type String struct{ *Var }

// Get returns the current value.
func (v Int) Get() int { return int(v.Int64()) }

// Get returns the current value.
func (v Bool) Get() bool { return v.Int64() != 0 }

// Get returns the current value.
func (v String) Get() string { return v.Text() }

// NewInt registers an int variable. Like the other constructors it panics on a
// programming error (a duplicate name, a default that does not parse), since
// variables are registered while packages initialize.
func NewInt(s Spec) Int { return Int{register(s, KindInt)} }

// NewBool registers a boolean variable.
func NewBool(s Spec) Bool { return Bool{register(s, KindBool)} }

// NewString registers a string variable.
func NewString(s Spec) String { return String{register(s, KindString)} }

func register(s Spec, k Kind) *Var {
	if s.Min == 0 && s.Max == 0 {
		s.Min, s.Max = math.MinInt32, math.MaxInt32
	}
	s.Min, s.Max = max(s.Min, math.MinInt32), min(s.Max, math.MaxInt32)
	return registerVar(&Var{spec: s, kind: k})
}

func registerVar(v *Var) *Var {
	s := v.spec
	prefix := "MPIX_"
	if v.info != nil {
		prefix = "mpix_"
	}
	if !strings.HasPrefix(s.Name, prefix) || s.Desc == "" || s.Category == nil {
		panic(fmt.Sprintf("cvar: %q needs an %s name, a description and a category", s.Name, prefix))
	}
	if s.Verbosity < UserBasic || s.Verbosity > MPIDevAll || s.Scope < ScopeConstant || s.Scope > ScopeAllEq {
		panic(fmt.Sprintf("cvar: %s: verbosity or scope out of range", s.Name))
	}
	n, str, err := v.parse(s.Default)
	if err != nil {
		panic(fmt.Sprintf("cvar: %s: default %q: %v", s.Name, s.Default, err))
	}
	v.num.Store(n)
	v.str.Store(&str)
	mu.Lock()
	defer mu.Unlock()
	if byName[s.Name] != nil {
		panic("cvar: " + s.Name + " registered twice")
	}
	v.index = len(vars)
	vars = append(vars, v)
	byName[s.Name] = v
	s.Category.cvars = append(s.Category.cvars, v.index)
	stamp.Add(1)
	return v
}

// parse reads a value in the environment's syntax.
func (v *Var) parse(text string) (int64, string, error) {
	switch v.kind {
	case KindInt:
		n, err := strconv.ParseInt(strings.TrimSpace(text), 10, 64)
		if err != nil || n < v.spec.Min || n > v.spec.Max {
			return 0, "", v.rangeErr()
		}
		return n, "", nil
	case KindBool:
		b, err := strconv.ParseBool(strings.TrimSpace(text))
		if err != nil {
			return 0, "", fmt.Errorf("%w: want 0 or 1", ErrInvalidValue)
		}
		if b {
			return 1, "", nil
		}
		return 0, "", nil
	default:
		if len(text) > MaxString || strings.IndexByte(text, 0) >= 0 {
			return 0, "", fmt.Errorf("%w: want at most %d characters and no NUL", ErrInvalidValue, MaxString)
		}
		return 0, text, nil
	}
}

func (v *Var) rangeErr() error {
	switch {
	case v.spec.Min == math.MinInt32 && v.spec.Max == math.MaxInt32:
		return fmt.Errorf("%w: want an integer", ErrInvalidValue)
	case v.spec.Max == math.MaxInt32:
		return fmt.Errorf("%w: want an integer >= %d", ErrInvalidValue, v.spec.Min)
	}
	return fmt.Errorf("%w: want an integer from %d to %d", ErrInvalidValue, v.spec.Min, v.spec.Max)
}

// load reads the environment once. The caller holds mu.
func (v *Var) loadLocked() {
	if v.loaded.Load() {
		return
	}
	if text, ok := os.LookupEnv(v.spec.Name); ok && v.info == nil {
		n, str, err := v.parse(text)
		if err != nil {
			v.envErr = fmt.Errorf("%s=%q: %w", v.spec.Name, text, err)
		} else {
			v.num.Store(n)
			v.str.Store(&str)
		}
	}
	v.loaded.Store(true)
}

func (v *Var) ensureLoaded() {
	if !v.loaded.Load() {
		mu.Lock()
		v.loadLocked()
		mu.Unlock()
	}
}

// Int64 returns the value of an int or bool variable (0 for a string variable).
func (v *Var) Int64() int64 {
	v.ensureLoaded()
	return v.num.Load()
}

// Text returns the value in the environment's syntax: a string variable's value, an
// int's decimal form, "0" or "1" for a bool.
func (v *Var) Text() string {
	if v.info != nil {
		return v.info.get()
	}
	v.ensureLoaded()
	if v.kind == KindString {
		return *v.str.Load()
	}
	return strconv.FormatInt(v.num.Load(), 10)
}

// Settable reports whether MPI_T may write the variable now: nil, or an error
// wrapping ErrSetNever or ErrSetNotNow.
func (v *Var) Settable() error {
	mu.Lock()
	defer mu.Unlock()
	return v.settableLocked()
}

func (v *Var) settableLocked() error {
	switch {
	case v.spec.Mutability == Fixed:
		return fmt.Errorf("%w: %s is taken from the environment only", ErrSetNever, v.spec.Name)
	case v.spec.Mutability == BeforeInit && frozen:
		return fmt.Errorf("%w: %s is read by MPI_Init and cannot change after it", ErrSetNotNow, v.spec.Name)
	}
	return nil
}

// SetInt64 writes an int or bool variable (a bool takes any non-zero value as 1).
// A variable that cannot be set reports that before any complaint about the value.
func (v *Var) SetInt64(n int64) error {
	if v.kind == KindBool && n != 0 {
		n = 1
	}
	return v.set(func() error {
		switch {
		case v.kind == KindString:
			return fmt.Errorf("%w: %s is a string", ErrInvalidValue, v.spec.Name)
		case v.kind == KindInt && (n < v.spec.Min || n > v.spec.Max):
			return fmt.Errorf("%s=%d: %w", v.spec.Name, n, v.rangeErr())
		}
		v.num.Store(n)
		return nil
	})
}

// SetString writes a string variable.
func (v *Var) SetString(s string) error {
	return v.set(func() error {
		if v.kind != KindString {
			return fmt.Errorf("%w: %s is not a string", ErrInvalidValue, v.spec.Name)
		}
		if _, _, err := v.parse(s); err != nil {
			return fmt.Errorf("%s: %w", v.spec.Name, err)
		}
		v.str.Store(&s)
		return nil
	})
}

// set runs store, which checks and stores a value, if the variable can be set now.
func (v *Var) set(store func() error) error {
	mu.Lock()
	defer mu.Unlock()
	if err := v.settableLocked(); err != nil {
		return err
	}
	v.loadLocked() // so that a later first read does not replace the written value
	if err := store(); err != nil {
		return err
	}
	v.envErr = nil // an explicit value replaces a bad one from the environment
	return nil
}

// Name is the environment variable's name, which is also the MPI_T name.
func (v *Var) Name() string { return v.spec.Name }

// Desc is the description.
func (v *Var) Desc() string { return v.spec.Desc }

// Kind is the value's type.
func (v *Var) Kind() Kind { return v.kind }

// Default is the default in the environment's syntax.
func (v *Var) Default() string { return v.spec.Default }

// Verbosity is the MPI_T verbosity.
func (v *Var) Verbosity() Verbosity { return v.spec.Verbosity }

// Scope is the MPI_T scope.
func (v *Var) Scope() Scope { return v.spec.Scope }

// Mutability says when MPI_T may write the variable.
func (v *Var) Mutability() Mutability { return v.spec.Mutability }

// Category is the category the variable belongs to.
func (v *Var) Category() *Category { return v.spec.Category }

// Index is the variable's MPI_T index.
func (v *Var) Index() int { return v.index }

// Range is the accepted range of an int variable.
func (v *Var) Range() (lo, hi int64) { return v.spec.Min, v.spec.Max }

// All returns every registered variable in index order.
func All() []*Var {
	mu.Lock()
	defer mu.Unlock()
	return append([]*Var(nil), vars...)
}

// ByIndex returns the variable with MPI_T index i.
func ByIndex(i int) (*Var, bool) {
	mu.Lock()
	defer mu.Unlock()
	if i < 0 || i >= len(vars) {
		return nil, false
	}
	return vars[i], true
}

// Lookup returns the variable with the given name.
func Lookup(name string) (*Var, bool) {
	mu.Lock()
	defer mu.Unlock()
	v, ok := byName[name]
	return v, ok
}

// Load reads every variable from the environment (those not read yet) and reports
// the values that did not parse, joined; each of those variables keeps its default.
func Load() error {
	mu.Lock()
	defer mu.Unlock()
	var errs []error
	for _, v := range vars {
		v.loadLocked()
		if v.envErr != nil {
			errs = append(errs, v.envErr)
		}
	}
	return errors.Join(errs...)
}

// Freeze ends the time in which BeforeInit variables can be written. MPI_Init calls
// it once it has read them.
func Freeze() {
	mu.Lock()
	frozen = true
	mu.Unlock()
}

// Stamp changes whenever a variable or category is registered: MPI_T_category_changed.
func Stamp() int64 { return stamp.Load() }

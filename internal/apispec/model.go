// Package apispec reads the one description of the MPI API that mpix's binding
// generators share: the MPI Forum's machine-readable apis.json (capi/gen/apis.json)
// and the one-line C prototypes of capi/gen/mpi41.h, capi/gen/legacy.h and
// include/mpix.h. capi/gen turns it into the C shim and Go exports, fortran/gen into
// mpif.h, the Fortran-ABI wrappers and module mpi (and, later, an mpi_f08 emitter
// beside it). What is language-neutral lives here; what one language adds (Go types,
// Fortran kinds) stays in its generator.
package apispec

import (
	"fmt"
	"sort"
	"strings"
)

// Proc is one C procedure to bind.
type Proc struct {
	Name   string  // C name, e.g. MPI_Send_c
	Ret    string  // C return type
	Params []Param // C parameters in order
	Ext    bool    // declared in mpix.h rather than apis.json
	// Feature is the MPIX_HAVE_* macro whose section of mpix.h declares the procedure
	// ("" outside mpix.h).
	Feature string
	// Large marks the _c large-count form of an apis.json procedure.
	Large bool
	// F90 and F08 are apis.json's f90_expressible and f08_expressible (false for
	// procedures from the C headers, whose bindings their generators decide).
	F90, F08   bool
	Deprecated bool
	// Ierror: the Fortran bindings end with an IERROR argument (apis.json lists it as a
	// parameter the C binding suppresses; MPI_Pcontrol has none).
	Ierror bool
}

// Param is one C parameter.
type Param struct {
	Name    string
	Base    string // C base type without const, e.g. "int", "MPI_Comm", "MPI_User_function"
	Const   bool
	Ptr     int    // number of '*' after the base type
	Array   bool   // written as name[] (decays to one more pointer level)
	Inner   string // inner dimension of a two-dimensional array, e.g. "3" for ranges[][3]
	Kind    string
	Dir     string // in, out, inout
	Length  string // for an array: the parameter that counts its elements ("" if none or not a name)
	Varargs bool
	// LengthConst is an array's length when apis.json gives a constant
	// (MPI_MAX_OBJECT_NAME for a name buffer), "" otherwise.
	LengthConst string
	// Suppress is apis.json's suppress list ("f90_parameter f08_parameter", ...).
	Suppress string
	Optional bool
}

// Suppressed reports whether apis.json leaves the parameter out of a binding
// ("c", "f90", "f08").
func (p Param) Suppressed(lang string) bool {
	for _, s := range strings.Fields(p.Suppress) {
		if s == lang+"_parameter" {
			return true
		}
	}
	return false
}

// Decl renders the parameter as it appears in a prototype.
func (p Param) Decl() string {
	if p.Varargs {
		return "..."
	}
	var b strings.Builder
	if p.Const {
		b.WriteString("const ")
	}
	b.WriteString(p.Base)
	b.WriteString(" ")
	b.WriteString(strings.Repeat("*", p.Ptr))
	// A status array is written as the pointer it decays to: gcc >= 11 reads "MPI_Status
	// s[]" as an array access and warns (-Wstringop-overflow) at every call that passes
	// MPI_STATUSES_IGNORE, ((MPI_Status *)1). The type is the same.
	statuses := p.Array && p.Base == "MPI_Status" && p.Inner == ""
	if statuses {
		b.WriteString("*")
	}
	b.WriteString(p.Name)
	if p.Array && !statuses {
		b.WriteString("[]")
	}
	if p.Inner != "" {
		b.WriteString("[" + p.Inner + "]")
	}
	return b.String()
}

// Levels is the pointer depth of the parameter after array decay.
func (p Param) Levels() int {
	n := p.Ptr
	if p.Array {
		n++
	}
	return n
}

// IsFuncPtr reports whether the base type is a function typedef.
func (p Param) IsFuncPtr() bool {
	return strings.HasSuffix(p.Base, "_function") || strings.HasSuffix(p.Base, "_function_c") ||
		strings.HasSuffix(p.Base, "_fn")
}

// CCast is the C type a shim passes on (const removed, function and void pointers as
// void *).
func (p Param) CCast() string {
	if p.Levels() == 0 {
		return p.Base
	}
	if p.IsFuncPtr() || p.Base == "void" || p.Inner != "" {
		return "void *"
	}
	return p.Base + " " + strings.Repeat("*", p.Levels())
}

// Prototype renders "ret name(params)".
func (f *Proc) Prototype(name string) string {
	var ps []string
	for _, p := range f.Params {
		ps = append(ps, p.Decl())
	}
	if len(ps) == 0 {
		ps = []string{"void"}
	}
	return fmt.Sprintf("%s %s(%s)", f.Ret, name, strings.Join(ps, ", "))
}

// PName is the profiling name: MPI_X -> PMPI_X, MPIX_X -> PMPIX_X.
func (f *Proc) PName() string { return "P" + f.Name }

// CallParams are the parameters a shim forwards (no varargs).
func (f *Proc) CallParams() []Param {
	var out []Param
	for _, p := range f.Params {
		if !p.Varargs {
			out = append(out, p)
		}
	}
	return out
}

// SortProcs orders procedures by name, stably.
func SortProcs(procs []*Proc) {
	sort.SliceStable(procs, func(i, j int) bool { return procs[i].Name < procs[j].Name })
}

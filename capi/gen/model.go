// Command gen writes mpix's C bindings from one description of the API, all of it in
// the repository: the MPI Forum's machine-readable capi/gen/apis.json (the MPI-4.0
// procedures), capi/gen/mpi41.h (the MPI-4.1 additions), capi/gen/legacy.h (MPI-1
// names MPICH still exports), the extension prototypes in include/mpix.h and the list
// of procedures with a C fast path, capi/gen/fastpaths.txt. It emits the prototypes
// section of include/mpi.h, the C shim capi/zshim.c (strong PMPI_X, weak MPI_X, the
// thread-context pointer passed down, the fast path tried first), the fast paths'
// declarations capi/zfast.h, the Go //export stubs capi/zexports.go with their generic
// argument checks, and two C tests in ctests/generated: unimplemented.c (every
// procedure without an implementation fails with MPI_ERR_UNSUPPORTED_OPERATION) and
// features.c (every procedure under a feature macro mpix.h defines is implemented).
// Adding a function to the library is one line in mpix.h (or mpi41.h) plus a Go
// impl_<name> function in capi.
package main

import (
	"fmt"
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

// levels is the pointer depth of the parameter after array decay.
func (p Param) levels() int {
	n := p.Ptr
	if p.Array {
		n++
	}
	return n
}

// isFuncPtr reports whether the base type is a function typedef.
func (p Param) isFuncPtr() bool {
	return strings.HasSuffix(p.Base, "_function") || strings.HasSuffix(p.Base, "_function_c") ||
		strings.HasSuffix(p.Base, "_fn")
}

// CCast is the C type the shim passes to the Go export (const removed).
func (p Param) CCast() string {
	if p.levels() == 0 {
		return p.Base
	}
	if p.isFuncPtr() || p.Base == "void" || p.Inner != "" {
		return "void *"
	}
	return p.Base + " " + strings.Repeat("*", p.levels())
}

// GoType is the cgo type of the parameter in the //export stub.
func (p Param) GoType() string {
	l := p.levels()
	if l == 0 {
		return "C." + p.Base
	}
	if p.isFuncPtr() || (p.Base == "void" && l == 1) || p.Inner != "" {
		return "unsafe.Pointer"
	}
	if p.Base == "void" {
		return strings.Repeat("*", l-1) + "unsafe.Pointer"
	}
	return strings.Repeat("*", l) + "C." + p.Base
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

// GoName is the Go identifier stem used for the export and the implementation.
func (f *Proc) GoName() string { return f.Name }

// callParams are the parameters the C shim forwards (no varargs).
func (f *Proc) callParams() []Param {
	var out []Param
	for _, p := range f.Params {
		if !p.Varargs {
			out = append(out, p)
		}
	}
	return out
}

// goKeywords are C parameter names that cannot be Go identifiers.
var goKeywords = map[string]bool{"type": true, "func": true, "range": true, "map": true,
	"chan": true, "select": true, "go": true, "defer": true, "package": true, "string": true,
	"len": true, "new": true, "copy": true, "error": true, "datatype": true, "core": true, "op": true}

// GoIdent is the parameter's name in Go.
func (p Param) GoIdent() string {
	if goKeywords[p.Name] {
		return p.Name + "_"
	}
	return p.Name
}

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
	"strings"

	"mpix/internal/apispec"
)

// Proc and Param are the shared model of internal/apispec; what follows is what the
// Go side of the bindings adds to it.
type (
	Proc  = apispec.Proc
	Param = apispec.Param
)

var (
	loadAPIs      = apispec.LoadAPIs
	loadProtoFile = apispec.LoadProtoFile
	parseParam    = apispec.ParseParam
	sortProcs     = apispec.SortProcs
)

// goTypeOf is the cgo type of the parameter in the //export stub.
func goTypeOf(p Param) string {
	l := p.Levels()
	if l == 0 {
		return "C." + p.Base
	}
	if p.IsFuncPtr() || (p.Base == "void" && l == 1) || p.Inner != "" {
		return "unsafe.Pointer"
	}
	if p.Base == "void" {
		return strings.Repeat("*", l-1) + "unsafe.Pointer"
	}
	return strings.Repeat("*", l) + "C." + p.Base
}

// goName is the Go identifier stem used for the export and the implementation.
func goName(f *Proc) string { return f.Name }

// goKeywords are C parameter names that cannot be Go identifiers.
var goKeywords = map[string]bool{"type": true, "func": true, "range": true, "map": true,
	"chan": true, "select": true, "go": true, "defer": true, "package": true, "string": true,
	"len": true, "new": true, "copy": true, "error": true, "datatype": true, "core": true, "op": true}

// goIdentOf is the parameter's name in Go.
func goIdentOf(p Param) string {
	if goKeywords[p.Name] {
		return p.Name + "_"
	}
	return p.Name
}

package main

import (
	"fmt"
	"regexp"
	"strings"

	"mpix/internal/apispec"
)

// argClass says how a Fortran argument reaches the C function: what the wrapper
// converts, and what the module's interface declares.
type argClass int

const (
	clSuppressed argClass = iota // not in the Fortran binding (MPI_Init's argc, argv): C gets NULL/0
	clValue                      // a scalar the C function takes by value: *x
	clRef                        // same layout on both sides (INTEGER arrays, outputs): x itself
	clLogicalIn                  // LOGICAL scalar in: *x != .FALSE.
	clLogicalOut                 // LOGICAL scalar out: a C int, then .TRUE./.FALSE.
	clChoice                     // a choice buffer: MPI_BOTTOM / MPI_IN_PLACE mapped to C's
	clDetach                     // a detached buffer's address: C writes it to a temporary, not over the user's buffer
	clAddrOut                    // a C pointer result (MPI_Alloc_mem's baseptr): an INTEGER(KIND=MPI_ADDRESS_KIND)
	clStringIn                   // CHARACTER in: trimmed, NUL-terminated
	clStringOut                  // CHARACTER out: C writes a temporary, copied back blank-padded
	clStatus                     // INTEGER status(MPI_STATUS_SIZE) or statuses: MPI_STATUS(ES)_IGNORE mapped
	clWeights                    // graph weights: MPI_UNWEIGHTED / MPI_WEIGHTS_EMPTY mapped
	clFunc                       // a procedure the C side calls with the same (by-reference) convention
	clFile                       // an MPI_File handle: a C pointer, a Fortran INTEGER
	clStrLen                     // a string's buffer length, inout, that counts C's NUL and not Fortran's
	clKeyval                     // a keyval: mpif.h's predefined ones are C's + 1
	clIndex                      // a completed request's index, or the indices: from 1 in Fortran, from 0 in C
	clHand                       // only in hand-written wrappers (attribute values, extra states, adapted callbacks)
)

// farg is one C parameter as the Fortran bindings see it.
type farg struct {
	P     apispec.Param
	Class argClass
	FType string // the dummy's type in module mpi: "INTEGER", "LOGICAL", "CHARACTER(LEN=*)"...
	Dims  string // its dimensions: "", "(*)", "(MPI_STATUS_SIZE)", "(3,*)"...
}

// fproc is one procedure with a Fortran binding.
type fproc struct {
	C    *apispec.Proc
	Args []farg
	// Result is the Fortran type of a function's result ("DOUBLE PRECISION" for
	// MPI_Wtime); "" for the usual subroutine with a trailing IERROR, "none" for a
	// subroutine without (MPI_Pcontrol).
	Result string
	// Hand: the C wrapper is hand-written (fortran/*.c), the interface generated.
	Hand bool
}

// FName is the procedure's Fortran name (the C name; Fortran ignores case).
func (f *fproc) FName() string { return f.C.Name }

// Symbol is the external symbol gfortran calls: lowercase with one trailing underscore.
func Symbol(name string) string { return strings.ToLower(name) + "_" }

// handWritten are the procedures whose Fortran convention differs from C's beyond
// what a generated wrapper converts: attribute values are integers in Fortran
// (MPI-4.1 §19.3.7), keyval callbacks take everything by reference, generalized
// requests' callbacks too, spawn's argument vectors are CHARACTER arrays.
// fortran/attr.c, grequest.c and spawn.c define them.
var handWritten = map[string]bool{
	"MPI_Comm_set_attr": true, "MPI_Type_set_attr": true, "MPI_Win_set_attr": true,
	"MPI_Comm_get_attr": true, "MPI_Type_get_attr": true, "MPI_Win_get_attr": true,
	"MPI_Attr_put": true, "MPI_Attr_get": true,
	"MPI_Comm_create_keyval": true, "MPI_Type_create_keyval": true, "MPI_Win_create_keyval": true,
	"MPI_Keyval_create": true, "MPI_Grequest_start": true,
	"MPI_Comm_spawn": true, "MPI_Comm_spawn_multiple": true, // fortran/spawn.c: argument vectors
}

// unbound are kinds no wrapper converts yet; a procedure with one gets no Fortran
// binding (the generated zbind.c lists them): C's argv outside MPI_Init, the f08
// status conversions (mpi_f08's). The argument vectors of MPI_Comm_spawn(_multiple)
// (STRING_ARRAY, STRING_2DARRAY) only its hand-written wrappers convert.
var unbound = map[string]bool{
	"ARGUMENT_LIST": true, "F08_STATUS": true, "F90_STATUS": true,
}

// unboundFunc are callbacks whose Fortran convention needs an adapter not written yet
// (user data representations; MPI-IO is not implemented in C either).
var unboundFunc = map[string]bool{
	"MPI_Datarep_extent_function": true, "MPI_Datarep_conversion_function": true,
}

// completions are the procedures that return which requests completed: their index
// and array_of_indices count from 1 in Fortran, from 0 in C (MPI-4.1 §3.7.5).
var completions = regexp.MustCompile(`^MPI_(Wait|Test)(any|some)$|^MPI_Request_get_status_(any|some)$`)

// nulCounted are the inout string lengths that count the terminating NUL in C and
// only the characters in Fortran (MPI-4.1's MPI_Info_get_string: buflen 4 gets
// "abcd" in Fortran, "abc" in C).
var nulCounted = map[string]bool{"MPI_Info_get_string.buflen": true, "MPI_Session_get_nth_pset.pset_len": true}

// handleBases are the C handle types, Fortran INTEGERs by identity.
var handleBases = map[string]bool{"MPI_Comm": true, "MPI_Group": true, "MPI_Datatype": true,
	"MPI_Op": true, "MPI_Errhandler": true, "MPI_Info": true, "MPI_Request": true,
	"MPI_Message": true, "MPI_Win": true, "MPI_Session": true}

// intType is the Fortran type of a C integer type.
var intType = map[string]string{
	"int":        "INTEGER",
	"MPI_Fint":   "INTEGER",
	"MPI_Aint":   "INTEGER(KIND=MPI_ADDRESS_KIND)",
	"MPI_Count":  "INTEGER(KIND=MPI_COUNT_KIND)",
	"MPI_Offset": "INTEGER(KIND=MPI_OFFSET_KIND)",
}

// isLogical: apis.json's LOGICAL kinds, and in the C headers' prototypes (which carry
// no kinds) an int output called flag.
func isLogical(p apispec.Param, fromJSON bool) bool {
	if strings.HasPrefix(p.Kind, "LOGICAL") {
		return true
	}
	return !fromJSON && p.Name == "flag" && p.Base == "int" && p.Levels() == 1
}

// classify maps a C parameter to its Fortran argument, or says why it has none.
func classify(f *apispec.Proc, p apispec.Param, fromJSON bool) (farg, error) {
	return classifyFor("f90", f, p, fromJSON)
}

// classifyFor is classify for one binding's suppressions ("f90" or "f08").
func classifyFor(lang string, f *apispec.Proc, p apispec.Param, fromJSON bool) (farg, error) {
	a := farg{P: p}
	if p.Array {
		a.Dims = "(*)"
		if p.Inner != "" {
			a.Dims = "(" + p.Inner + ",*)"
		}
	}
	switch {
	case p.Suppressed(lang):
		a.Class = clSuppressed
		return a, nil
	case unbound[p.Kind]:
		return a, fmt.Errorf("kind %s", p.Kind)
	case p.Kind == "STRING_ARRAY" || p.Kind == "STRING_2DARRAY":
		if !handWritten[f.Name] {
			return a, fmt.Errorf("kind %s", p.Kind)
		}
		// CHARACTER*(*) ARGV(*), ended by a blank entry; ARRAY_OF_ARGV(COUNT, *)
		a.Class, a.FType, a.Dims = clHand, "CHARACTER(LEN=*)", "(*)"
		if p.Kind == "STRING_2DARRAY" {
			a.Dims = "(" + p.Length + ",*)"
		}
		return a, nil
	case p.IsFuncPtr() || strings.HasSuffix(p.Kind, "FUNCTION"):
		if unboundFunc[p.Base] {
			return a, fmt.Errorf("callback %s", p.Base)
		}
		a.Class, a.FType = clFunc, "EXTERNAL"
		if handWritten[f.Name] {
			a.Class = clHand
		}
		return a, nil
	case p.Kind == "ATTRIBUTE_VAL" || p.Kind == "EXTRA_STATE":
		a.Class, a.FType = clHand, intType["MPI_Aint"]
		return a, nil
	case p.Kind == "ATTRIBUTE_VAL_10" || p.Kind == "EXTRA_STATE2":
		a.Class, a.FType = clHand, "INTEGER"
		return a, nil
	case p.Base == "MPI_Status":
		a.Class, a.FType = clStatus, "INTEGER"
		a.Dims = "(MPI_STATUS_SIZE)"
		if p.Array {
			a.Dims = "(MPI_STATUS_SIZE,*)"
		}
		return a, nil
	case p.Base == "char" && p.Levels() == 1:
		a.FType = "CHARACTER(LEN=*)"
		a.Dims = ""
		a.Class = clStringIn
		if !p.Const && p.Dir != "in" {
			a.Class = clStringOut
		}
		return a, nil
	case p.Base == "void" && p.Levels() == 1:
		switch {
		case p.Kind == "C_BUFFER2" || p.Name == "buffer_addr":
			a.Class = clDetach
		case p.Kind == "C_BUFFER" || p.Name == "baseptr":
			a.Class, a.FType = clAddrOut, intType["MPI_Aint"]
			return a, nil
		default:
			a.Class = clChoice
		}
		a.FType, a.Dims = "TYPE(*)", "(*)"
		return a, nil
	case p.Base == "MPI_File":
		a.Class, a.FType = clFile, "INTEGER"
		if p.Array {
			return a, fmt.Errorf("an array of files")
		}
		return a, nil
	case isLogical(p, fromJSON):
		a.FType = "LOGICAL"
		switch {
		case p.Levels() == 0:
			a.Class = clLogicalIn
		case p.Array:
			a.Class = clRef // gfortran's LOGICAL is a 4-byte 1 or 0, C's int truth
		default:
			a.Class = clLogicalOut
		}
		return a, nil
	case completions.MatchString(f.Name) && (p.Name == "index" || p.Name == "array_of_indices"):
		a.Class, a.FType = clIndex, "INTEGER"
		return a, nil
	case p.Kind == "KEYVAL" && p.Levels() == 0:
		a.Class, a.FType = clKeyval, "INTEGER"
		return a, nil
	case nulCounted[f.Name+"."+p.Name]:
		a.Class, a.FType = clStrLen, "INTEGER"
		return a, nil
	case p.Kind == "WEIGHT" && p.Array:
		a.Class, a.FType = clWeights, "INTEGER"
		return a, nil
	}
	t, ok := intType[p.Base]
	if handleBases[p.Base] {
		t, ok = "INTEGER", true
	}
	if !ok {
		return a, fmt.Errorf("C type %s of %s", p.Decl(), p.Name)
	}
	a.FType = t
	if p.Levels() == 0 {
		a.Class = clValue
	} else if p.Levels() == 1 || p.Inner != "" {
		a.Class = clRef
	} else {
		return a, fmt.Errorf("pointer depth %d of %s", p.Levels(), p.Name)
	}
	return a, nil
}

// resultType is the Fortran type of a function's result ("" for error codes).
var resultType = map[string]string{"double": "DOUBLE PRECISION", "MPI_Aint": "INTEGER(KIND=MPI_ADDRESS_KIND)"}

// bind builds a procedure's Fortran binding.
func bind(f *apispec.Proc, fromJSON bool) (*fproc, error) { return bindFor("f90", f, fromJSON) }

// bindFor is bind for one binding ("f90" or "f08").
func bindFor(lang string, f *apispec.Proc, fromJSON bool) (*fproc, error) {
	fp := &fproc{C: f, Hand: handWritten[f.Name]}
	if f.Ret == "int" && fromJSON && !f.Ierror {
		fp.Result = "none"
	}
	if f.Ret != "int" {
		t, ok := resultType[f.Ret]
		if !ok {
			return nil, fmt.Errorf("%s: result type %s", f.Name, f.Ret)
		}
		fp.Result = t
	}
	for _, p := range f.CallParams() {
		a, err := classifyFor(lang, f, p, fromJSON)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		fp.Args = append(fp.Args, a)
	}
	return fp, nil
}

// HasCPtr reports whether the procedure returns a C pointer (MPI_Alloc_mem's
// baseptr), which module mpi also takes as a TYPE(C_PTR).
func (f *fproc) HasCPtr() bool {
	for _, a := range f.Args {
		if a.Class == clAddrOut {
			return true
		}
	}
	return false
}

// Dummies are the arguments Fortran passes, in order (IERROR not included).
func (f *fproc) Dummies() []farg {
	var out []farg
	for _, a := range f.Args {
		if a.Class != clSuppressed {
			out = append(out, a)
		}
	}
	return out
}

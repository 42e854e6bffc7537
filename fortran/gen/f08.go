package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"mpix/internal/apispec"
)

// module mpi_f08 (MPI-4.1 §19.1.2): the handle types, TYPE(MPI_Status), the constants
// as typed parameters, the special objects bound to C's MPIR_F08_* and one generic
// name per procedure whose specifics are
//
//   - for most procedures, a BIND(C) interface (MPI_X_f08, and MPI_X_c_f08 for the
//     large-count form) to a C wrapper in fortran/zbind_f08.c: handles and statuses are
//     passed by reference as C's (the same words), choice buffers as CFI descriptors
//     (TS 29113 assumed-type assumed-rank), CHARACTER(LEN=*) as descriptors, and the
//     OPTIONAL ierror as a pointer that is NULL when it is absent;
//   - for the procedures that take a procedure argument (BIND(C) would require the
//     user's procedure to be BIND(C) too) and those whose module mpi wrapper is
//     hand-written (attributes, keyvals, generalized requests, spawn), a module
//     procedure that calls module mpi's wrapper (pmpi_x_) through an implicit
//     interface, which passes the same words: the handle types are one INTEGER, and
//     the f08 callbacks take their arguments by reference as the f90 ones do.

// f08Proc is one procedure of module mpi_f08.
type f08Proc struct {
	*fproc
	Generic  string // the generic name users call (MPI_Send for MPI_Send_c too)
	Specific string // MPI_Send_f08, MPI_Send_c_f08
	ViaF90   bool   // a module procedure calling module mpi's wrapper
}

// bufferRetained: a choice buffer the library may still read or write after the call
// returns (nonblocking and persistent requests, one-sided origins, windows, attached
// buffers). A non-contiguous section there cannot be copied for the duration, so the
// wrapper reports MPI_ERR_BUFFER rather than pass a copy.
var bufferRetained = regexp.MustCompile(`^MPIX?_(R?Put|R?Get|R?Accumulate|R?Get_accumulate|Fetch_and_op|Compare_and_swap|Win_create|Win_attach|Buffer_attach|Comm_attach_buffer|Session_attach_buffer|Memhandle_create|Win_from_memhandle|File_\w+_(begin|end))(_notify)?(_c)?$`)

// bufferAddress: only the address of the buffer matters (its first element's).
var bufferAddress = map[string]bool{"MPI_Get_address": true, "MPI_Win_detach": true, "MPI_Free_mem": true,
	"MPIX_Memhandle_release": true}

// f08Type is the type of an argument in module mpi_f08.
func f08Type(a farg) (ftype, dims string) {
	ftype, dims = a.FType, a.Dims
	switch {
	case a.Class == clStatus:
		ftype, dims = "TYPE(MPI_Status)", ""
		if a.P.Array {
			dims = "(*)"
		}
	case a.Class == clFile:
		ftype = "TYPE(MPI_File)"
	case a.Class == clChoice:
		ftype, dims = "TYPE(*)", "(..)"
	case a.Class == clDetach || a.Class == clAddrOut:
		ftype, dims = "TYPE(C_PTR)", ""
	case handleBases[a.P.Base] && (a.Class == clValue || a.Class == clRef):
		ftype = "TYPE(" + a.P.Base + ")"
	}
	return
}

// f08Procs are the procedures of module mpi_f08 with their names, and those of m.F08
// left out (a large-count form with a callback has no module mpi wrapper to call).
func f08Procs(m *Model) ([]*f08Proc, []string) {
	var dropped []string
	kinds := strings.NewReplacer(
		"KIND=MPI_ADDRESS_KIND", fmt.Sprint("KIND=", m.Consts.Sizes["MPI_Aint"]),
		"KIND=MPI_COUNT_KIND", fmt.Sprint("KIND=", m.Consts.Sizes["MPI_Count"]),
		"KIND=MPI_OFFSET_KIND", fmt.Sprint("KIND=", m.Consts.Sizes["MPI_Offset"]))
	f90 := map[string]bool{}
	for _, f := range m.Procs {
		f90[f.C.Name] = true
	}
	var out []*f08Proc
	for _, f := range m.F08 {
		p := &f08Proc{fproc: f, Generic: strings.TrimSuffix(f.C.Name, "_c"), Specific: f.C.Name + "_f08"}
		if !f.C.Large {
			p.Generic = f.C.Name
		}
		for _, a := range f.Args {
			if a.Class == clFunc || a.Class == clHand {
				p.ViaF90 = true
			}
		}
		if f.Hand {
			p.ViaF90 = true
		}
		if p.ViaF90 && !f90[f.C.Name] {
			// a large-count form with a callback: no module mpi wrapper to call
			dropped = append(dropped, f.C.Name+": a callback, and no module mpi wrapper to call")
			continue
		}
		out = append(out, p)
	}
	// a large-count form the generic cannot tell from the other gets its own name
	byGen := map[string][]*f08Proc{}
	for _, p := range out {
		byGen[strings.ToUpper(p.Generic)] = append(byGen[strings.ToUpper(p.Generic)], p)
	}
	for _, ps := range byGen {
		if len(ps) == 2 && !distinguishable(ps[0], ps[1], kinds.Replace) {
			for _, p := range ps {
				if p.C.Large {
					p.Generic = p.C.Name
				}
			}
		}
	}
	return out, dropped
}

// distinguishable: gfortran can resolve a generic call between the two specifics,
// which have the same argument names: one argument differs in type, kind or rank.
// kind maps the named kinds to their values (MPI_Aint and MPI_Count are one kind).
func distinguishable(a, b *f08Proc, kind func(string) string) bool {
	da, db := a.Dummies(), b.Dummies()
	if len(da) != len(db) {
		return true
	}
	for i := range da {
		ta, ra := f08Type(da[i])
		tb, rb := f08Type(db[i])
		if ta == "TYPE(*)" || tb == "TYPE(*)" {
			continue
		}
		if kind(ta) != kind(tb) || (ra == "") != (rb == "") {
			return true
		}
	}
	return false
}

// f08Handles are the handle types, in the standard's order.
var f08Handles = []string{"MPI_Comm", "MPI_Datatype", "MPI_Errhandler", "MPI_File", "MPI_Group",
	"MPI_Info", "MPI_Message", "MPI_Op", "MPI_Request", "MPI_Session", "MPI_Win"}

// emitModuleF08 writes fortran/zmpi_f08.f90 (module mpi_f08) and fortran/zbind_f08.c
// (the C wrappers its BIND(C) interfaces name).
func emitModuleF08(m *Model) (map[string][]byte, error) {
	procs, dropped := f08Procs(m)
	var b strings.Builder
	b.WriteString(`! module mpi_f08 -- mpix's Fortran 2008 bindings (use mpi_f08), TS 29113 buffers.
! Generated by fortran/gen from capi/gen/apis.json, capi/gen/mpi41.h, include/mpi.h
! and include/mpix.h; do not edit. See fortran/README.md.
MODULE MPI_F08
USE, INTRINSIC :: ISO_C_BINDING, ONLY : C_PTR, C_INT
IMPLICIT NONE
PRIVATE :: C_INT
`)
	b.WriteString("! Handles: one INTEGER, the C handle (MPI_File: the index C's MPI_File_c2f gives)\n")
	for _, h := range f08Handles {
		fmt.Fprintf(&b, "TYPE, BIND(C) :: %s\n  INTEGER :: MPI_VAL\nEND TYPE %s\n", h, h)
	}
	b.WriteString(`! The status: C's MPI_Status, the same 20 bytes
TYPE, BIND(C) :: MPI_Status
  INTEGER :: count_lo
  INTEGER :: count_hi_and_cancelled
  INTEGER :: MPI_SOURCE
  INTEGER :: MPI_TAG
  INTEGER :: MPI_ERROR
END TYPE MPI_Status
INTERFACE OPERATOR(==)
`)
	for _, h := range f08Handles {
		fmt.Fprintf(&b, "  MODULE PROCEDURE mpix_eq_%s\n", strings.ToLower(strings.TrimPrefix(h, "MPI_")))
	}
	b.WriteString("END INTERFACE\nINTERFACE OPERATOR(/=)\n")
	for _, h := range f08Handles {
		fmt.Fprintf(&b, "  MODULE PROCEDURE mpix_ne_%s\n", strings.ToLower(strings.TrimPrefix(h, "MPI_")))
	}
	b.WriteString("END INTERFACE\n")
	for _, h := range f08Handles {
		l := strings.ToLower(strings.TrimPrefix(h, "MPI_"))
		fmt.Fprintf(&b, "PRIVATE :: mpix_eq_%s, mpix_ne_%s\n", l, l)
	}

	b.WriteString("! Kinds, the status array of module mpi, what these bindings promise\n")
	for _, k := range m.FOnly {
		if k.Logical != "" {
			fmt.Fprintf(&b, "LOGICAL, PARAMETER :: %s = %s\n", k.Name, k.Logical)
			continue
		}
		fmt.Fprintf(&b, "INTEGER, PARAMETER :: %s = %s\n", k.Name, fortranInt(k.F))
	}
	b.WriteString("! Constants of include/mpi.h and include/mpix.h, handles typed\n")
	for _, k := range m.Consts.List {
		switch {
		case k.IsStr:
			fmt.Fprintf(&b, "CHARACTER(LEN=*), PARAMETER :: %s = '%s'\n", k.Name, strings.ReplaceAll(k.Str, "'", "''"))
		case k.Handle != "":
			fmt.Fprintf(&b, "TYPE(%s), PARAMETER :: %s = %s(%s)\n", k.Handle, k.Name, k.Handle, fortranInt(k.F))
		default:
			fmt.Fprintf(&b, "INTEGER, PARAMETER :: %s = %s\n", k.Name, fortranInt(k.F))
		}
	}
	b.WriteString(`! The special objects: C's (include/mpi.h), compared by address in zbind_f08.c
TYPE(MPI_Status), BIND(C, name="MPIR_F08_MPI_STATUS_IGNORE_OBJ"), TARGET :: MPI_STATUS_IGNORE
TYPE(MPI_Status), BIND(C, name="MPIR_F08_MPI_STATUSES_IGNORE_OBJ"), TARGET :: MPI_STATUSES_IGNORE(1)
INTEGER(C_INT), BIND(C, name="MPIR_F08_MPI_IN_PLACE"), TARGET :: MPI_IN_PLACE
INTEGER(C_INT), BIND(C, name="MPIR_F08_MPI_BOTTOM"), TARGET :: MPI_BOTTOM
! C's names for the two status objects (pointers to them, for C code)
TYPE(C_PTR), BIND(C, name="MPI_F08_STATUS_IGNORE"), PROTECTED :: MPI_F08_STATUS_IGNORE
TYPE(C_PTR), BIND(C, name="MPI_F08_STATUSES_IGNORE"), PROTECTED :: MPI_F08_STATUSES_IGNORE
! module mpi's COMMON blocks, for the special addresses mpi_f08 shares with it
INTEGER :: mpix_priv2_statuses(MPI_STATUS_SIZE), MPI_ERRCODES_IGNORE(1)
CHARACTER(LEN=1) :: MPI_ARGVS_NULL(1,1), MPI_ARGV_NULL(1)
INTEGER :: MPI_UNWEIGHTED(1), MPI_WEIGHTS_EMPTY(1)
COMMON /MPIPRIV2/ mpix_priv2_statuses, MPI_ERRCODES_IGNORE
COMMON /MPIPRIVC/ MPI_ARGVS_NULL, MPI_ARGV_NULL
COMMON /MPIFCMB5/ MPI_UNWEIGHTED
COMMON /MPIFCMB9/ MPI_WEIGHTS_EMPTY
SAVE /MPIPRIV2/, /MPIPRIVC/, /MPIFCMB5/, /MPIFCMB9/
PRIVATE :: mpix_priv2_statuses
`)
	b.WriteString("! Predefined callbacks (fortran/callbacks.c: by reference, as f08's are)\n")
	for _, n := range m.Predef {
		fmt.Fprintf(&b, "EXTERNAL :: %s\n", n)
	}
	f08Abstract(&b)

	// generics, in name order; specifics under them
	gens := map[string][]*f08Proc{}
	var order []string
	for _, p := range procs {
		if _, ok := gens[p.Generic]; !ok {
			order = append(order, p.Generic)
		}
		gens[p.Generic] = append(gens[p.Generic], p)
	}
	sort.Strings(order)
	// MPI_X, then the profiling names PMPI_X (MPI-4.1 §15.2.5): their specifics are
	// the C wrappers' strong names PMPI_X_f08, which MPI_X_f08 are weak aliases of
	for _, prof := range []string{"", "P"} {
		for _, g := range order {
			fmt.Fprintf(&b, "INTERFACE %s%s\n", prof, g)
			for _, p := range gens[g] {
				if p.ViaF90 {
					fmt.Fprintf(&b, "  MODULE PROCEDURE %s\n", p.Specific)
					continue
				}
				f08Interface(&b, p, prof)
			}
			fmt.Fprintf(&b, "END INTERFACE %s%s\n", prof, g)
		}
	}
	f08Extras(&b)
	b.WriteString("\nCONTAINS\n\n")
	for _, h := range f08Handles {
		l := strings.ToLower(strings.TrimPrefix(h, "MPI_"))
		fmt.Fprintf(&b, "ELEMENTAL LOGICAL FUNCTION mpix_eq_%s(a, b)\n  TYPE(%s), INTENT(IN) :: a, b\n  mpix_eq_%s = a%%MPI_VAL == b%%MPI_VAL\nEND FUNCTION\n", l, h, l)
		fmt.Fprintf(&b, "ELEMENTAL LOGICAL FUNCTION mpix_ne_%s(a, b)\n  TYPE(%s), INTENT(IN) :: a, b\n  mpix_ne_%s = a%%MPI_VAL /= b%%MPI_VAL\nEND FUNCTION\n", l, h, l)
	}
	for _, p := range procs {
		if p.ViaF90 {
			f08ViaF90(&b, p)
		}
	}
	f08ExtraBodies(&b)
	b.WriteString("END MODULE MPI_F08\n")

	var skipped []string
	for _, s := range append(append([]string{}, m.F08Skipped...), dropped...) {
		// written in the module (f08ExtraBodies)
		if !strings.HasPrefix(s, "MPI_Status_f2f08:") && !strings.HasPrefix(s, "MPI_Status_f082f:") {
			skipped = append(skipped, s)
		}
	}
	sort.Strings(skipped)
	c, err := emitF08Wrappers(procs, skipped)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{"fortran/zmpi_f08.f90": []byte(b.String()), "fortran/zbind_f08.c": c}, nil
}

// f08Decl declares one dummy argument of a specific.
func f08Decl(b *strings.Builder, p *f08Proc, a farg) {
	t, dims := f08Type(a)
	attrs := ""
	switch {
	case a.Class == clChoice && p.C.Large == false && bufferRetained.MatchString(p.C.Name) || a.Class == clChoice && hasRequest(p.fproc):
		attrs = ", ASYNCHRONOUS"
	}
	if a.Class == clChoice && a.P.Const {
		attrs += ", INTENT(IN)"
	}
	if a.Class == clValue {
		attrs += ", INTENT(IN)"
	}
	switch {
	case t == "EXTERNAL":
		fmt.Fprintf(b, "    EXTERNAL :: %s\n", a.P.Name)
	case dims == "(..)":
		fmt.Fprintf(b, "    %s, DIMENSION(..)%s :: %s\n", t, attrs, a.P.Name)
	default:
		fmt.Fprintf(b, "    %s%s :: %s%s\n", t, attrs, a.P.Name, dims)
	}
}

// hasRequest: the procedure returns or takes requests (its buffers outlive the call).
func hasRequest(f *fproc) bool {
	for _, a := range f.Args {
		if a.P.Base == "MPI_Request" {
			return true
		}
	}
	return false
}

// f08Header writes a specific's first line and its result or ierror declarations'
// common part; it returns the statement keyword.
func f08Header(b *strings.Builder, p *f08Proc, bindc bool, prof string) string {
	var names []string
	for _, a := range p.Dummies() {
		names = append(names, a.P.Name)
	}
	kw := "SUBROUTINE"
	switch p.Result {
	case "":
		names = append(names, "ierror")
	case "none":
	default:
		kw = "FUNCTION"
	}
	suffix := ""
	if bindc {
		suffix = fmt.Sprintf(" &\n      & BIND(C, name=\"%s%s\")", prof, p.Specific)
	}
	name := prof + p.Specific
	fmt.Fprintf(b, "  %s %s(%s)%s\n", kw, name, wrapList(names, 4+len(kw)+len(name)), suffix)
	return kw
}

// f08Interface writes the BIND(C) interface body of a specific (prof "P": of its
// profiling name).
func f08Interface(b *strings.Builder, p *f08Proc, prof string) {
	kw := f08Header(b, p, true, prof)
	b.WriteString("    IMPORT\n    IMPLICIT NONE\n")
	for _, a := range p.Dummies() {
		f08Decl(b, p, a)
	}
	switch p.Result {
	case "":
		b.WriteString("    INTEGER, OPTIONAL, INTENT(OUT) :: ierror\n")
	case "none":
	default:
		fmt.Fprintf(b, "    %s :: %s%s\n", p.Result, prof, p.Specific)
	}
	fmt.Fprintf(b, "  END %s %s%s\n", kw, prof, p.Specific)
}

// f08ViaF90 writes a module procedure that calls module mpi's wrapper.
func f08ViaF90(b *strings.Builder, p *f08Proc) {
	kw := f08Header(b, p, false, "")
	for _, a := range p.Dummies() {
		f08Decl(b, p, a)
	}
	var names []string
	for _, a := range p.Dummies() {
		names = append(names, a.P.Name)
	}
	ext := "P" + p.C.Name // module mpi's pmpi_x_
	switch p.Result {
	case "":
		b.WriteString("    INTEGER, OPTIONAL, INTENT(OUT) :: ierror\n    INTEGER :: ierr0\n")
		fmt.Fprintf(b, "    EXTERNAL :: %s\n", ext)
		names = append(names, "ierr0")
		fmt.Fprintf(b, "    CALL %s(%s)\n", ext, wrapList(names, 10+len(ext)))
		b.WriteString("    IF (PRESENT(ierror)) ierror = ierr0\n")
	case "none":
		fmt.Fprintf(b, "    EXTERNAL :: %s\n    CALL %s(%s)\n", ext, ext, wrapList(names, 10+len(ext)))
	default:
		fmt.Fprintf(b, "    %s :: %s\n    %s, EXTERNAL :: %s\n", p.Result, p.Specific, p.Result, ext)
		fmt.Fprintf(b, "    %s = %s(%s)\n", p.Specific, ext, wrapList(names, 10+len(ext)))
	}
	fmt.Fprintf(b, "  END %s %s\n", kw, p.Specific)
}

// f08Abstract writes the callbacks' abstract interfaces (MPI-4.1 §19.1.5), for
// PROCEDURE(MPI_User_function) declarations in programs.
func f08Abstract(b *strings.Builder) {
	b.WriteString(`ABSTRACT INTERFACE
  SUBROUTINE MPI_User_function(invec, inoutvec, len, datatype)
    IMPORT :: C_PTR, MPI_Datatype
    TYPE(C_PTR), VALUE :: invec, inoutvec
    INTEGER :: len
    TYPE(MPI_Datatype) :: datatype
  END SUBROUTINE
  SUBROUTINE MPI_Comm_errhandler_function(comm, error_code)
    IMPORT :: MPI_Comm
    TYPE(MPI_Comm) :: comm
    INTEGER :: error_code
  END SUBROUTINE
  SUBROUTINE MPI_Win_errhandler_function(win, error_code)
    IMPORT :: MPI_Win
    TYPE(MPI_Win) :: win
    INTEGER :: error_code
  END SUBROUTINE
  SUBROUTINE MPI_Session_errhandler_function(session, error_code)
    IMPORT :: MPI_Session
    TYPE(MPI_Session) :: session
    INTEGER :: error_code
  END SUBROUTINE
  SUBROUTINE MPI_File_errhandler_function(file, error_code)
    IMPORT :: MPI_File
    TYPE(MPI_File) :: file
    INTEGER :: error_code
  END SUBROUTINE
  SUBROUTINE MPI_Comm_copy_attr_function(oldcomm, comm_keyval, extra_state, &
      & attribute_val_in, attribute_val_out, flag, ierror)
    IMPORT :: MPI_Comm, MPI_ADDRESS_KIND
    TYPE(MPI_Comm) :: oldcomm
    INTEGER :: comm_keyval, ierror
    INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
    LOGICAL :: flag
  END SUBROUTINE
  SUBROUTINE MPI_Comm_delete_attr_function(comm, comm_keyval, attribute_val, extra_state, ierror)
    IMPORT :: MPI_Comm, MPI_ADDRESS_KIND
    TYPE(MPI_Comm) :: comm
    INTEGER :: comm_keyval, ierror
    INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
  END SUBROUTINE
END INTERFACE
`)
}

// f08Extras are the generics with no C procedure behind them: the status
// conversions between module mpi's INTEGER array and TYPE(MPI_Status), MPI_Sizeof,
// MPI_F_sync_reg.
func f08Extras(b *strings.Builder) {
	b.WriteString(`INTERFACE MPI_Status_f2f08
  MODULE PROCEDURE MPI_Status_f2f08_f08
END INTERFACE MPI_Status_f2f08
INTERFACE MPI_Status_f082f
  MODULE PROCEDURE MPI_Status_f082f_f08
END INTERFACE MPI_Status_f082f
INTERFACE MPI_F_sync_reg
  SUBROUTINE MPI_F_sync_reg_f08(buf) BIND(C, name="pmpi_f_sync_reg_")
    TYPE(*), DIMENSION(..), ASYNCHRONOUS :: buf
  END SUBROUTINE
END INTERFACE MPI_F_sync_reg
INTERFACE MPI_Sizeof
`)
	for _, k := range sizeofKinds {
		fmt.Fprintf(b, "  MODULE PROCEDURE %s_f08\n", sizeofName(k.typ, k.kind))
	}
	b.WriteString("END INTERFACE MPI_Sizeof\n")
}

func f08ExtraBodies(b *strings.Builder) {
	b.WriteString(`  SUBROUTINE MPI_Status_f2f08_f08(f_status, f08_status, ierror)
    INTEGER, INTENT(IN) :: f_status(MPI_STATUS_SIZE)
    TYPE(MPI_Status), INTENT(OUT) :: f08_status
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    f08_status = MPI_Status(f_status(1), f_status(2), f_status(3), f_status(4), f_status(5))
    IF (PRESENT(ierror)) ierror = MPI_SUCCESS
  END SUBROUTINE MPI_Status_f2f08_f08
  SUBROUTINE MPI_Status_f082f_f08(f08_status, f_status, ierror)
    TYPE(MPI_Status), INTENT(IN) :: f08_status
    INTEGER, INTENT(OUT) :: f_status(MPI_STATUS_SIZE)
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    f_status = [f08_status%count_lo, f08_status%count_hi_and_cancelled, &
        & f08_status%MPI_SOURCE, f08_status%MPI_TAG, f08_status%MPI_ERROR]
    IF (PRESENT(ierror)) ierror = MPI_SUCCESS
  END SUBROUTINE MPI_Status_f082f_f08
`)
	for _, k := range sizeofKinds {
		n := sizeofName(k.typ, k.kind) + "_f08"
		fmt.Fprintf(b, "  SUBROUTINE %s(x, size, ierror)\n    %s(KIND=%d), DIMENSION(..), INTENT(IN) :: x\n", n, k.typ, k.kind)
		fmt.Fprintf(b, "    INTEGER, INTENT(OUT) :: size\n    INTEGER, OPTIONAL, INTENT(OUT) :: ierror\n")
		fmt.Fprintf(b, "    size = %d\n    IF (.FALSE.) size = RANK(x)\n    IF (PRESENT(ierror)) ierror = MPI_SUCCESS\n  END SUBROUTINE %s\n", k.bytes, n)
	}
}

// bindF08 builds the f08 binding of a procedure (apispec's f08_expressible, or one of
// the C headers' that module mpi binds too).
func bindF08(f *apispec.Proc, fromJSON bool) (*fproc, error) {
	return bindFor("f08", f, fromJSON)
}

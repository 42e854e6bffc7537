package main

/*
#include "capi.h"

// The C handle MPI_File_f2c returns for a Fortran handle that names no open file: an
// invalid handle, as MPI asks, which cannot be MPI_FILE_NULL (a valid handle) and is
// no file's address, so the MPI-IO layer's table lookup refuses it.
static char invalid_file;
static MPI_File mpix_invalid_file(void) { return (MPI_File)&invalid_file; }

// The file at a C address the table holds (Go may not make a pointer of a uintptr).
static MPI_File mpix_file_at(uintptr_t addr) { return (MPI_File)addr; }
*/
import "C"

import (
	"unsafe"

	"mpix/core"
)

// Handle and status conversion between C and Fortran (MPI-4.1 §19.3.4-19.3.5). The
// exports skip the initialization check (capi/gen's isConversion): MPI allows these
// before MPI_Init and after MPI_Finalize.

// Handles that are ints are the same values in C and Fortran, as in MPICH: a
// conversion is the identity, whatever part of the library made the handle (a
// request of any kind, core/handles.h, goes back to the same request).

func impl_MPI_Comm_c2f(ctx *C.mpix_ctx, comm C.MPI_Comm) C.MPI_Fint    { return C.MPI_Fint(comm) }
func impl_MPI_Comm_f2c(ctx *C.mpix_ctx, comm C.MPI_Fint) C.MPI_Comm    { return C.MPI_Comm(comm) }
func impl_MPI_Group_c2f(ctx *C.mpix_ctx, group C.MPI_Group) C.MPI_Fint { return C.MPI_Fint(group) }
func impl_MPI_Group_f2c(ctx *C.mpix_ctx, group C.MPI_Fint) C.MPI_Group { return C.MPI_Group(group) }
func impl_MPI_Type_c2f(ctx *C.mpix_ctx, datatype_ C.MPI_Datatype) C.MPI_Fint {
	return C.MPI_Fint(datatype_)
}
func impl_MPI_Type_f2c(ctx *C.mpix_ctx, datatype_ C.MPI_Fint) C.MPI_Datatype {
	return C.MPI_Datatype(datatype_)
}
func impl_MPI_Request_c2f(ctx *C.mpix_ctx, request C.MPI_Request) C.MPI_Fint {
	return C.MPI_Fint(request)
}
func impl_MPI_Request_f2c(ctx *C.mpix_ctx, request C.MPI_Fint) C.MPI_Request {
	return C.MPI_Request(request)
}
func impl_MPI_Op_c2f(ctx *C.mpix_ctx, op_ C.MPI_Op) C.MPI_Fint      { return C.MPI_Fint(op_) }
func impl_MPI_Op_f2c(ctx *C.mpix_ctx, op_ C.MPI_Fint) C.MPI_Op      { return C.MPI_Op(op_) }
func impl_MPI_Win_c2f(ctx *C.mpix_ctx, win C.MPI_Win) C.MPI_Fint    { return C.MPI_Fint(win) }
func impl_MPI_Win_f2c(ctx *C.mpix_ctx, win C.MPI_Fint) C.MPI_Win    { return C.MPI_Win(win) }
func impl_MPI_Info_c2f(ctx *C.mpix_ctx, info C.MPI_Info) C.MPI_Fint { return C.MPI_Fint(info) }
func impl_MPI_Info_f2c(ctx *C.mpix_ctx, info C.MPI_Fint) C.MPI_Info { return C.MPI_Info(info) }
func impl_MPI_Errhandler_c2f(ctx *C.mpix_ctx, errhandler C.MPI_Errhandler) C.MPI_Fint {
	return C.MPI_Fint(errhandler)
}
func impl_MPI_Errhandler_f2c(ctx *C.mpix_ctx, errhandler C.MPI_Fint) C.MPI_Errhandler {
	return C.MPI_Errhandler(errhandler)
}
func impl_MPI_Message_c2f(ctx *C.mpix_ctx, message C.MPI_Message) C.MPI_Fint {
	return C.MPI_Fint(message)
}
func impl_MPI_Message_f2c(ctx *C.mpix_ctx, message C.MPI_Fint) C.MPI_Message {
	return C.MPI_Message(message)
}
func impl_MPI_Session_c2f(ctx *C.mpix_ctx, session C.MPI_Session) C.MPI_Fint {
	return C.MPI_Fint(session)
}
func impl_MPI_Session_f2c(ctx *C.mpix_ctx, session C.MPI_Fint) C.MPI_Session {
	return C.MPI_Session(session)
}

// invalidFortranFile is what MPI_File_c2f returns for a pointer that is no open file:
// an invalid Fortran handle (open files are 1, 2, ...; MPI_FILE_NULL is 0).
const invalidFortranFile = -1

// MPI_File is a pointer: the file table (core.Files), where the MPI-IO layer registers
// the files it opens, holds the Fortran handles.
func impl_MPI_File_c2f(ctx *C.mpix_ctx, file C.MPI_File) C.MPI_Fint {
	h, ok := core.Files.Fortran(uintptr(unsafe.Pointer(file)))
	if !ok {
		return invalidFortranFile
	}
	return C.MPI_Fint(h)
}

func impl_MPI_File_f2c(ctx *C.mpix_ctx, file C.MPI_Fint) C.MPI_File {
	f, ok := core.Files.File(int32(file))
	if !ok {
		return C.mpix_invalid_file()
	}
	return C.mpix_file_at(C.uintptr_t(f))
}

// The three forms of a status are the same five integers in the same order (MPICH's
// layout): MPI_Status, MPI_F08_status and the Fortran INTEGER array of
// MPI_F_STATUS_SIZE elements, whose MPI_F_SOURCE, MPI_F_TAG and MPI_F_ERROR are the
// C fields' positions. So every conversion is one copy, count and cancelled bit
// included; the checks below fail the build if mpi.h ever says otherwise.
type statusWords [C.MPI_F_STATUS_SIZE]C.MPI_Fint

var (
	_ [unsafe.Sizeof(C.MPI_Status{}) - unsafe.Sizeof(statusWords{})]struct{}
	_ [unsafe.Sizeof(statusWords{}) - unsafe.Sizeof(C.MPI_Status{})]struct{}
	_ [unsafe.Sizeof(C.MPI_F08_status{}) - unsafe.Sizeof(statusWords{})]struct{}
	_ [unsafe.Sizeof(statusWords{}) - unsafe.Sizeof(C.MPI_F08_status{})]struct{}
	_ [unsafe.Offsetof(C.MPI_Status{}.MPI_SOURCE) - C.MPI_F_SOURCE*4]struct{}
	_ [C.MPI_F_SOURCE*4 - unsafe.Offsetof(C.MPI_Status{}.MPI_SOURCE)]struct{}
	_ [C.MPI_F_TAG - C.MPI_F_SOURCE - 1]struct{}
	_ [C.MPI_F_ERROR - C.MPI_F_TAG - 1]struct{}
)

// copyStatus copies a status from src to dst, in whatever forms: srcOK and dstOK say
// whether each is a real status, not NULL or one of its form's IGNORE values. Passing
// an IGNORE value to be converted is erroneous (MPI-4.1 §19.3.5), and one to receive
// the result has no room for it.
func copyStatus(dst unsafe.Pointer, dstName string, dstOK bool, src unsafe.Pointer, srcName string, srcOK bool) error {
	if !srcOK {
		return core.Errorf(core.ErrArg, "%s must be a status, not NULL or a STATUS(ES)_IGNORE value", srcName)
	}
	if !dstOK {
		return core.Errorf(core.ErrArg, "%s must be a status, not NULL or a STATUS(ES)_IGNORE value", dstName)
	}
	*(*statusWords)(dst) = *(*statusWords)(src)
	return nil
}

func isCStatus(s *C.MPI_Status) bool {
	return s != nil && s != C.MPI_STATUS_IGNORE && s != C.MPI_STATUSES_IGNORE
}

func isFStatus(s *C.MPI_Fint) bool {
	return s != nil && s != C.MPI_F_STATUS_IGNORE && s != C.MPI_F_STATUSES_IGNORE
}

func isF08Status(s *C.MPI_F08_status) bool {
	return s != nil && s != C.MPI_F08_STATUS_IGNORE && s != C.MPI_F08_STATUSES_IGNORE
}

func impl_MPI_Status_c2f(ctx *C.mpix_ctx, c_status *C.MPI_Status, f_status *C.MPI_Fint) error {
	return copyStatus(unsafe.Pointer(f_status), "f_status", isFStatus(f_status),
		unsafe.Pointer(c_status), "c_status", isCStatus(c_status))
}

func impl_MPI_Status_f2c(ctx *C.mpix_ctx, f_status *C.MPI_Fint, c_status *C.MPI_Status) error {
	return copyStatus(unsafe.Pointer(c_status), "c_status", isCStatus(c_status),
		unsafe.Pointer(f_status), "f_status", isFStatus(f_status))
}

func impl_MPI_Status_c2f08(ctx *C.mpix_ctx, c_status *C.MPI_Status, f08_status *C.MPI_F08_status) error {
	return copyStatus(unsafe.Pointer(f08_status), "f08_status", isF08Status(f08_status),
		unsafe.Pointer(c_status), "c_status", isCStatus(c_status))
}

func impl_MPI_Status_f082c(ctx *C.mpix_ctx, f08_status *C.MPI_F08_status, c_status *C.MPI_Status) error {
	return copyStatus(unsafe.Pointer(c_status), "c_status", isCStatus(c_status),
		unsafe.Pointer(f08_status), "f08_status", isF08Status(f08_status))
}

func impl_MPI_Status_f2f08(ctx *C.mpix_ctx, f_status *C.MPI_Fint, f08_status *C.MPI_F08_status) error {
	return copyStatus(unsafe.Pointer(f08_status), "f08_status", isF08Status(f08_status),
		unsafe.Pointer(f_status), "f_status", isFStatus(f_status))
}

func impl_MPI_Status_f082f(ctx *C.mpix_ctx, f08_status *C.MPI_F08_status, f_status *C.MPI_Fint) error {
	return copyStatus(unsafe.Pointer(f_status), "f_status", isFStatus(f_status),
		unsafe.Pointer(f08_status), "f08_status", isF08Status(f08_status))
}

package main

/*
#include "capi.h"

// MPI_File is a pointer: Go holds a file's handle as the integer mpiio gave it.
static MPI_File mpix_file_handle(uintptr_t addr) { return (MPI_File)addr; }
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/mpiio"
)

// The file chapter (MPI-4.1 §14): the converters of the MPI_File_* calls. The
// semantics live in package mpiio; collective accesses (_all, _at_all, the split
// collectives) do what the independent ones do, without collective buffering yet;
// the nonblocking ones are carried out when they are posted and return a completed
// request.

// lookupFile resolves a file handle for the generated exports: MPI_ERR_FILE for
// MPI_FILE_NULL, a closed file or an address that is no file.
func lookupFile(addr uintptr) (*mpiio.File, error) { return mpiio.Lookup(addr) }

func fileHandle(f *mpiio.File) C.MPI_File { return C.mpix_file_handle(C.uintptr_t(f.Addr)) }

// fileNull is MPI_FILE_NULL as an error target: its handler is the one new files get
// and the one errors that belong to no open file go to.
type fileNull struct{}

func (fileNull) Errhandler() *core.Errhandler { return mpiio.NullErrhandler() }

// isFileFunc reports whether fn belongs to the file chapter.
func isFileFunc(fn funcID) bool {
	n := funcNames[fn]
	return len(n) > 9 && n[:9] == "MPI_File_"
}

func impl_MPI_File_open(ctx *C.mpix_ctx, comm *core.Comm, filename *C.char, amode C.int, info *core.Info, fh *C.MPI_File) error {
	*fh = nil
	f, err := mpiio.Open(comm, C.GoString(filename), int(amode), info)
	if err != nil {
		return err
	}
	*fh = fileHandle(f)
	return nil
}

func impl_MPI_File_close(ctx *C.mpix_ctx, fh *C.MPI_File) error {
	f, err := mpiio.Lookup(uintptr(unsafe.Pointer(*fh)))
	if err != nil {
		return err
	}
	*fh = nil
	eh := f.Errhandler().Ref() // Close drops the file's reference
	if err := f.Close(); err != nil {
		// The file's handler hears it (MPI-4.1 §14.7), given the closed handle; the
		// reference goes with this error report.
		return &onTarget{err, closedFile{eh, f.Addr}}
	}
	eh.Release()
	return nil
}

// closedFile is a file MPI_File_close closed, as the target of its error.
type closedFile struct {
	eh   *core.Errhandler
	addr uintptr
}

func (c closedFile) Errhandler() *core.Errhandler { return c.eh }

func impl_MPI_File_delete(ctx *C.mpix_ctx, filename *C.char, info *core.Info) error {
	return mpiio.Delete(C.GoString(filename))
}

func impl_MPI_File_set_size(ctx *C.mpix_ctx, fh *mpiio.File, size C.MPI_Offset) error {
	return fh.SetSize(int64(size))
}

func impl_MPI_File_preallocate(ctx *C.mpix_ctx, fh *mpiio.File, size C.MPI_Offset) error {
	return fh.Preallocate(int64(size))
}

func impl_MPI_File_get_size(ctx *C.mpix_ctx, fh *mpiio.File, size *C.MPI_Offset) error {
	s, err := fh.Size()
	if err != nil {
		return err
	}
	*size = C.MPI_Offset(s)
	return nil
}

func impl_MPI_File_sync(ctx *C.mpix_ctx, fh *mpiio.File) error { return fh.Sync() }

func impl_MPI_File_get_group(ctx *C.mpix_ctx, fh *mpiio.File, group *C.MPI_Group) error {
	putGroup(group, fh.Comm().Group())
	return nil
}

func impl_MPI_File_get_amode(ctx *C.mpix_ctx, fh *mpiio.File, amode *C.int) error {
	*amode = C.int(fh.Amode())
	return nil
}

func impl_MPI_File_set_info(ctx *C.mpix_ctx, fh *mpiio.File, info *core.Info) error {
	return fh.SetInfo(info)
}

func impl_MPI_File_get_info(ctx *C.mpix_ctx, fh *mpiio.File, info_used *C.MPI_Info) error {
	*info_used = C.MPI_Info(fh.Info().Handle)
	return nil
}

func impl_MPI_File_set_atomicity(ctx *C.mpix_ctx, fh *mpiio.File, flag C.int) error {
	return fh.SetAtomicity(flag != 0)
}

func impl_MPI_File_get_atomicity(ctx *C.mpix_ctx, fh *mpiio.File, flag *C.int) error {
	*flag = cBool(fh.Atomicity())
	return nil
}

// Error handlers. MPI_FILE_NULL is a valid argument of these three: its handler is
// the default for files opened later.

func impl_MPI_File_create_errhandler(ctx *C.mpix_ctx, file_errhandler_fn unsafe.Pointer, errhandler *C.MPI_Errhandler) error {
	e, err := core.NewErrhandler(core.OnFile, file_errhandler_fn)
	if err != nil {
		return err
	}
	*errhandler = C.MPI_Errhandler(e.Handle)
	return nil
}

func impl_MPI_File_set_errhandler(ctx *C.mpix_ctx, file C.MPI_File, e *core.Errhandler) error {
	if file == nil {
		return mpiio.SetNullErrhandler(e)
	}
	f, err := mpiio.Lookup(uintptr(unsafe.Pointer(file)))
	if err != nil {
		return err
	}
	return f.SetErrhandler(e)
}

func impl_MPI_File_get_errhandler(ctx *C.mpix_ctx, file C.MPI_File, errhandler *C.MPI_Errhandler) error {
	if file == nil {
		*errhandler = C.MPI_Errhandler(mpiio.NullErrhandler().Ref().Handle)
		return nil
	}
	f, err := mpiio.Lookup(uintptr(unsafe.Pointer(file)))
	if err != nil {
		return err
	}
	*errhandler = C.MPI_Errhandler(f.Errhandler().Ref().Handle)
	return nil
}

func impl_MPI_File_call_errhandler(ctx *C.mpix_ctx, fh C.MPI_File, errorcode C.int) error {
	msg, err := core.ErrorString(int(errorcode))
	if err != nil {
		return err
	}
	var target errTarget = fileNull{}
	if fh != nil {
		f, err := mpiio.Lookup(uintptr(unsafe.Pointer(fh)))
		if err != nil {
			return err
		}
		target = f
	}
	invokeHandler(fnMPI_File_call_errhandler, target, int(errorcode), msg)
	return nil
}

// Views.

func impl_MPI_File_set_view(ctx *C.mpix_ctx, fh *mpiio.File, disp C.MPI_Offset, etype *datatype.Type, filetype *datatype.Type, datarep *C.char, info *core.Info) error {
	return fh.SetView(int64(disp), etype, filetype, C.GoString(datarep), info)
}

func impl_MPI_File_get_view(ctx *C.mpix_ctx, fh *mpiio.File, disp *C.MPI_Offset, etype *C.MPI_Datatype, filetype *C.MPI_Datatype, datarep *C.char) error {
	v := fh.View()
	*disp = C.MPI_Offset(v.Disp)
	// A derived type comes back as a handle the caller frees (MPI-4.1 §14.3).
	for _, p := range []struct {
		t   *datatype.Type
		out *C.MPI_Datatype
	}{{v.Etype, etype}, {v.Filetype, filetype}} {
		p.t.RefHandle()
		*p.out = C.MPI_Datatype(p.t.Handle())
	}
	putString(datarep, C.MPI_MAX_DATAREP_STRING, v.Datarep)
	return nil
}

// fileExtent is a type's extent in the file's data representation: its extent in
// memory for native and internal; for external32, a predefined type's external32
// size (mpix's external32 views hold only types whose size is the same in both).
func fileExtent(fh *mpiio.File, t *datatype.Type) int64 {
	if fh.View().Datarep == datatype.External32 && t.IsPredefined() {
		return t.ExternalSize()
	}
	return t.Extent()
}

func impl_MPI_File_get_type_extent_c(ctx *C.mpix_ctx, fh *mpiio.File, datatype_ *datatype.Type, extent *C.MPI_Count) error {
	*extent = C.MPI_Count(fileExtent(fh, datatype_))
	return nil
}

func impl_MPI_File_get_type_extent(ctx *C.mpix_ctx, fh *mpiio.File, datatype_ *datatype.Type, extent *C.MPI_Aint) error {
	*extent = C.MPI_Aint(fileExtent(fh, datatype_))
	return nil
}

func impl_MPI_File_get_byte_offset(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, disp *C.MPI_Offset) error {
	b, err := fh.ByteOffset(int64(offset))
	if err != nil {
		return err
	}
	*disp = C.MPI_Offset(b)
	return nil
}

// File pointers.

func impl_MPI_File_seek(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, whence C.int) error {
	return fh.SeekTo(int64(offset), int(whence))
}

func impl_MPI_File_get_position(ctx *C.mpix_ctx, fh *mpiio.File, offset *C.MPI_Offset) error {
	p, err := fh.Position()
	if err != nil {
		return err
	}
	*offset = C.MPI_Offset(p)
	return nil
}

func impl_MPI_File_seek_shared(ctx *C.mpix_ctx, fh *mpiio.File, offset C.MPI_Offset, whence C.int) error {
	return fh.SeekShared(int64(offset), int(whence))
}

func impl_MPI_File_get_position_shared(ctx *C.mpix_ctx, fh *mpiio.File, offset *C.MPI_Offset) error {
	p, err := fh.SharedPosition()
	if err != nil {
		return err
	}
	*offset = C.MPI_Offset(p)
	return nil
}

package main

/*
#include "capi.h"
*/
import "C"

import (
	"unsafe"

	"mpix/core"
)

// MPI-4 sessions: MPI without MPI_Init. A session starts the library if nothing else
// has; process sets "mpi://WORLD" and "mpi://SELF" give groups, and
// MPI_Comm_create_from_group makes communicators from them.

func impl_MPI_Session_init(ctx *C.mpix_ctx, info *core.Info, errhandler *core.Errhandler, session *C.MPI_Session) error {
	s, err := core.SessionInit(info, errhandler)
	if err != nil {
		return err
	}
	*session = C.MPI_Session(s.Handle)
	return nil
}

func impl_MPI_Session_finalize(ctx *C.mpix_ctx, session *C.MPI_Session) error {
	s, err := core.LookupSession(int32(*session))
	if err != nil {
		return err
	}
	if err := s.Finalize(); err != nil {
		return err
	}
	*session = C.MPI_Session(core.NullHandle(core.KindSession))
	return nil
}

func impl_MPI_Session_get_info(ctx *C.mpix_ctx, session *core.Session, info_used *C.MPI_Info) error {
	*info_used = C.MPI_Info(session.Info().Handle)
	return nil
}

func impl_MPI_Session_get_num_psets(ctx *C.mpix_ctx, session *core.Session, info *core.Info, npset_names *C.int) error {
	*npset_names = C.int(len(session.Psets()))
	return nil
}

// MPI_Session_get_nth_pset: with *pset_len 0 it only reports the length (plus one
// for the terminator); otherwise the name is copied, truncated to fit.
func impl_MPI_Session_get_nth_pset(ctx *C.mpix_ctx, session *core.Session, info *core.Info, n C.int, pset_len *C.int, pset_name *C.char) error {
	names := session.Psets()
	if n < 0 || int(n) >= len(names) {
		return core.Errorf(core.ErrArg, "process set index %d out of range (0..%d)", int(n), len(names)-1)
	}
	name := names[n]
	if *pset_len > 0 {
		if pset_name == nil {
			return core.Errorf(core.ErrArg, "pset_name must not be NULL when pset_len > 0")
		}
		putString(pset_name, int(*pset_len), name)
	}
	*pset_len = C.int(len(name) + 1)
	return nil
}

func impl_MPI_Session_get_pset_info(ctx *C.mpix_ctx, session *core.Session, pset_name *C.char, info *C.MPI_Info) error {
	in, err := session.PsetInfo(C.GoString(pset_name))
	if err != nil {
		return err
	}
	*info = C.MPI_Info(in.Handle)
	return nil
}

func impl_MPI_Group_from_session_pset(ctx *C.mpix_ctx, session *core.Session, pset_name *C.char, newgroup *C.MPI_Group) error {
	g, err := session.PsetGroup(C.GoString(pset_name))
	if err != nil {
		return err
	}
	putGroup(newgroup, g)
	return nil
}

func impl_MPI_Session_create_errhandler(ctx *C.mpix_ctx, fn unsafe.Pointer, errhandler *C.MPI_Errhandler) error {
	e, err := core.NewErrhandler(core.OnSession, fn)
	if err != nil {
		return err
	}
	*errhandler = C.MPI_Errhandler(e.Handle)
	return nil
}

func impl_MPI_Session_set_errhandler(ctx *C.mpix_ctx, session *core.Session, errhandler *core.Errhandler) error {
	return session.SetErrhandler(errhandler)
}

func impl_MPI_Session_get_errhandler(ctx *C.mpix_ctx, session *core.Session, errhandler *C.MPI_Errhandler) error {
	*errhandler = C.MPI_Errhandler(session.Errhandler().Ref().Handle)
	return nil
}

func impl_MPI_Session_call_errhandler(ctx *C.mpix_ctx, session *core.Session, errorcode C.int) error {
	msg, err := core.ErrorString(int(errorcode))
	if err != nil {
		return err
	}
	invokeHandler(fnMPI_Session_call_errhandler, session, int(errorcode), msg)
	return nil
}

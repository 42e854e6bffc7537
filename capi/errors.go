package main

/*
#include "capi.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"

	"mpix/core"
	"mpix/mpiio"
	"mpix/rma"
)

// errNotImplemented is what a procedure without an implementation reports.
func errNotImplemented(fn funcID) error {
	return core.Errorf(core.ErrUnsupportedOp, "mpix: %s is not implemented yet", funcNames[fn])
}

// errTarget is an object whose error handler an error goes to: a communicator or a
// session.
type errTarget interface {
	Errhandler() *core.Errhandler
}

// raise reports err from procedure fn through the error handler of target and returns
// the error code for the caller. An error that belongs to no valid object goes to
// MPI_COMM_WORLD's handler, as in MPICH, so programs that set MPI_ERRORS_RETURN on
// MPI_COMM_WORLD get codes back for invalid handles too.
func raise(fn funcID, target errTarget, err error) C.int {
	var ot *onTarget
	if errors.As(err, &ot) {
		target, err = ot.target, ot.err
	}
	e := core.AsError(err)
	code := core.InstanceCode(e)
	if strings.HasPrefix(funcNames[fn], "MPI_T_") {
		// The tools interface returns codes and never calls error handlers.
		if e.Class == core.ErrUnsupportedOp {
			return core.ErrTNotSupported
		}
		return C.int(e.Class)
	}
	if !core.LibraryRunning() {
		// Before MPI starts or after it has finished no handler exists: errors are fatal.
		fatal(fn, code, e.Msg, "MPI_ERRORS_ARE_FATAL")
	}
	if target == nil || isNilTarget(target) {
		target = core.CommWorld
		if isFileFunc(fn) {
			// Errors of the file chapter that belong to no open file go to
			// MPI_FILE_NULL's handler (MPI-4.1 §9.3), MPI_ERRORS_RETURN at first.
			target = fileNull{}
		}
	}
	return C.int(invokeHandler(fn, target, code, e.Msg))
}

// onTarget is an error an implementation raises on another object's handler than the
// one the generated export picks (MPI_File_close's error goes to the handler of the
// file it closed, whose handle no longer resolves).
type onTarget struct {
	err    error
	target errTarget
}

func (e *onTarget) Error() string { return e.err.Error() }
func (e *onTarget) Unwrap() error { return e.err }

func isNilTarget(t errTarget) bool {
	switch o := t.(type) {
	case *core.Comm:
		return o == nil
	case *core.Session:
		return o == nil
	case *rma.Win:
		return o == nil
	case *mpiio.File:
		return o == nil
	}
	return false
}

// invokeHandler runs target's error handler for an error code and returns the code.
func invokeHandler(fn funcID, target errTarget, code int, msg string) int {
	eh := target.Errhandler()
	if eh == nil {
		eh = core.ErrhFatal
	}
	switch eh.Kind {
	case core.ErrorsReturn:
	case core.ErrorsUser:
		switch o := target.(type) {
		case *core.Comm:
			C.mpix_call_comm_errhandler(eh.Fn, C.MPI_Comm(o.Handle), C.int(code))
		case *core.Session:
			C.mpix_call_session_errhandler(eh.Fn, C.MPI_Session(o.Handle), C.int(code))
		case *rma.Win:
			C.mpix_call_win_errhandler(eh.Fn, C.MPI_Win(o.Handle), C.int(code))
		case *mpiio.File:
			C.mpix_call_file_errhandler(eh.Fn, C.uintptr_t(o.Addr), C.int(code))
		case fileNull:
			C.mpix_call_file_errhandler(eh.Fn, 0, C.int(code))
		case closedFile:
			C.mpix_call_file_errhandler(eh.Fn, C.uintptr_t(o.addr), C.int(code))
		}
	case core.ErrorsAbort:
		fatal(fn, code, msg, "MPI_ERRORS_ABORT")
	default:
		fatal(fn, code, msg, "MPI_ERRORS_ARE_FATAL")
	}
	return code
}

// fatal prints one line and ends the job for the error handler handler
// (MPI_ERRORS_ARE_FATAL / MPI_ERRORS_ABORT; "a memory fault" for faulted). The exit status is the error class, as
// with MPICH. The process manager is told "<handler>: <call>: <message>", so that
// mpixexec says the handler ended the job in that call, not that the program called
// MPI_Abort.
func fatal(fn funcID, code int, msg, handler string) {
	msg = strings.TrimPrefix(msg, "mpix: ")
	line := fmt.Sprintf("mpix: %s: %s", funcNames[fn], msg)
	if core.Initialized() && !core.Finalized() && core.CommWorld.Size > 1 {
		line = fmt.Sprintf("mpix: rank %d: %s: %s", core.CommWorld.Rank, funcNames[fn], msg)
	}
	class, err := core.ErrorClass(code)
	if err != nil || class == 0 {
		class = core.ErrOther
	}
	abortJob(class, line, fmt.Sprintf("%s: %s: %s (error class %d)", handler, funcNames[fn], msg, class))
}

// abortJob flushes the program's C stdio buffers so that nothing it printed is lost,
// prints line, then aborts the job through the process manager, with reason (""
// for MPI_Abort).
func abortJob(code int, line, reason string) {
	C.mpix_flush_stdio()
	fmt.Fprintln(os.Stderr, line)
	core.AbortWith(code, reason)
}

// recoverCall turns a Go panic inside procedure fn into MPI_ERR_INTERN through the
// error handler: no panic or Go stack trace ever reaches the C program.
func recoverCall(fn funcID, rc *C.int) {
	if r := recover(); r != nil {
		faulted(fn, r)
		*rc = raise(fn, nil, core.Errorf(core.ErrIntern, "internal error: %v", r))
	}
}

// recoverValue is recoverCall for procedures that return a value instead of a code.
func recoverValue(fn funcID) {
	if r := recover(); r != nil {
		faulted(fn, r)
		raise(fn, nil, core.Errorf(core.ErrIntern, "internal error: %v", r))
	}
}

// catchFaults makes a memory fault in Go code during this call (a user buffer that
// is not accessible memory) a panic that recoverCall sees, instead of the Go
// runtime's crash with a stack dump. The exports of procedures that take a buffer
// call it first (capi/gen); the setting belongs to the calling thread's goroutine.
func catchFaults() { debug.SetPanicOnFault(true) }

// faulted ends the job with one line naming the call when r is a memory fault: the
// library may have been stopped halfway (a lock held, a message half sent), so no
// error handler can let the program go on. Anything else returns, a nil dereference
// (an address in the first page) too: Go panics on those without catchFaults, and
// they stay MPI_ERR_INTERN, as they were.
func faulted(fn funcID, r any) {
	f, ok := r.(interface{ Addr() uintptr })
	if !ok || f.Addr() < 4096 {
		return
	}
	msg := fmt.Sprintf("memory fault at address 0x%x: a buffer argument is not accessible memory", f.Addr())
	fatal(fn, core.ErrBuffer, msg, "a memory fault")
}

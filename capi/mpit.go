package main

// The MPI tool information interface (MPI-4.1 §15.3): control variables from
// core/cvar, performance variables and sessions from core/pvar, and the category
// tree. MPI_T works before MPI_Init and after MPI_Finalize, between its own
// MPI_T_init_thread and MPI_T_finalize, and returns MPI_T_ERR_* codes instead of
// calling error handlers (see raise).

/*
#include <string.h>
#include "capi.h"
*/
import "C"

import (
	"errors"
	"sync"
	"syscall"
	"unsafe"

	"mpix/core"
	"mpix/core/cvar"
	"mpix/core/pvar"
)

// tokenSpace hands out the addresses that MPI_T handles and sessions are (they are
// pointer types in C). The addresses lie in a range reserved without access rights
// and are never handed out twice, so a token is never memory anyone uses and a
// stale or made-up handle is always recognised as invalid.
type tokenSpace struct {
	region []byte
	next   int
}

const tokenSpaceSize = 1 << 24 // tokens; reserved address space, no memory

// alloc returns a new token, or an error with class full when the space is used up.
func (t *tokenSpace) alloc(full int) (unsafe.Pointer, error) {
	if t.region == nil {
		r, err := syscall.Mmap(-1, 0, tokenSpaceSize, syscall.PROT_NONE,
			syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
		if err != nil {
			return nil, core.Errorf(C.MPI_T_ERR_MEMORY, "cannot reserve address space for MPI_T handles: %v", err)
		}
		t.region = r
	}
	if t.next >= len(t.region) {
		return nil, core.Errorf(full, "all %d MPI_T handles and sessions have been used", tokenSpaceSize)
	}
	p := unsafe.Add(unsafe.Pointer(unsafe.SliceData(t.region)), t.next)
	t.next++
	return p, nil
}

// pvarEntry is a pvar handle with the session it was allocated in.
type pvarEntry struct {
	h *pvar.Handle
	s *pvar.Session
}

// mpit is the tools interface's state. mu guards it; variables and sessions have
// locks of their own, taken after mu is released.
var mpit struct {
	mu       sync.Mutex
	refs     int // MPI_T_init_thread calls not yet matched by MPI_T_finalize
	tokens   tokenSpace
	cvars    map[uintptr]*cvar.Var
	sessions map[uintptr]*pvar.Session
	pvars    map[uintptr]pvarEntry
}

// key is the map key of a token.
func key(p unsafe.Pointer) uintptr { return uintptr(p) }

// tReady fails unless MPI_T is initialized. The caller holds mpit.mu.
func tReady() error {
	if mpit.refs == 0 {
		return core.Errorf(C.MPI_T_ERR_NOT_INITIALIZED, "MPI_T_init_thread has not been called")
	}
	return nil
}

// tLocked runs f with mpit.mu held once MPI_T is initialized.
func tLocked(f func() error) error {
	mpit.mu.Lock()
	defer mpit.mu.Unlock()
	if err := tReady(); err != nil {
		return err
	}
	return f()
}

// tCheck fails unless MPI_T is initialized.
func tCheck() error { return tLocked(func() error { return nil }) }

// putTString returns s by MPI_T's convention for strings (MPI-4.1 §15.3.3): at most
// *length-1 characters and a NUL go to buf; *length becomes len(s)+1. A NULL buf or a
// zero length asks for the length only; a NULL length asks for nothing.
func putTString(buf *C.char, length *C.int, s string) {
	if length == nil {
		return
	}
	if buf != nil && *length > 0 {
		putString(buf, int(*length), s)
	}
	*length = C.int(len(s) + 1)
}

// putInt stores n where p points, if p is not NULL (MPI_T's optional outputs).
func putInt(p *C.int, n int) {
	if p != nil {
		*p = C.int(n)
	}
}

// tInvalid reports a bad argument of an MPI_T procedure.
func tInvalid(format string, args ...any) error {
	return core.Errorf(C.MPI_T_ERR_INVALID, format, args...)
}

func impl_MPI_T_init_thread(ctx *C.mpix_ctx, required C.int, provided *C.int) error {
	if required < C.MPI_THREAD_SINGLE {
		return tInvalid("invalid thread level %d", int(required))
	}
	mpit.mu.Lock()
	defer mpit.mu.Unlock()
	if mpit.refs == 0 {
		mpit.cvars = map[uintptr]*cvar.Var{}
		mpit.sessions = map[uintptr]*pvar.Session{}
		mpit.pvars = map[uintptr]pvarEntry{}
	}
	mpit.refs++
	// Every MPI_T procedure locks what it touches, so any level can be provided.
	*provided = min(required, C.MPI_THREAD_MULTIPLE)
	return nil
}

func impl_MPI_T_finalize(ctx *C.mpix_ctx) error {
	return tLocked(func() error {
		if mpit.refs--; mpit.refs == 0 {
			// The last finalize frees every handle and session; their tokens stay
			// retired, so using them later reports an invalid handle.
			for _, s := range mpit.sessions {
				s.Close()
			}
			mpit.cvars, mpit.sessions, mpit.pvars = nil, nil, nil
		}
		return nil
	})
}

// Control variables.

func impl_MPI_T_cvar_get_num(ctx *C.mpix_ctx, num_cvar *C.int) error {
	if err := tCheck(); err != nil {
		return err
	}
	*num_cvar = C.int(len(cvar.All()))
	return nil
}

func cvarAt(i C.int) (*cvar.Var, error) {
	if err := tCheck(); err != nil {
		return nil, err
	}
	v, ok := cvar.ByIndex(int(i))
	if !ok {
		return nil, core.Errorf(C.MPI_T_ERR_INVALID_INDEX, "no control variable has index %d", int(i))
	}
	return v, nil
}

// cvarType is the MPI datatype and count of a control variable's value.
func cvarType(v *cvar.Var) (C.MPI_Datatype, int) {
	if v.Kind() == cvar.KindString {
		return C.MPI_CHAR, cvar.MaxString + 1
	}
	return C.MPI_INT, 1
}

func impl_MPI_T_cvar_get_info(ctx *C.mpix_ctx, cvar_index C.int, name *C.char, name_len *C.int, verbosity *C.int, datatype_ *C.MPI_Datatype, enumtype *C.MPI_T_enum, desc *C.char, desc_len *C.int, bind *C.int, scope *C.int) error {
	v, err := cvarAt(cvar_index)
	if err != nil {
		return err
	}
	putTString(name, name_len, v.Name())
	putTString(desc, desc_len, v.Desc())
	putInt(verbosity, int(v.Verbosity()))
	if datatype_ != nil {
		*datatype_, _ = cvarType(v)
	}
	if enumtype != nil {
		*enumtype = nil // MPI_T_ENUM_NULL: no variable is an enumeration
	}
	putInt(bind, C.MPI_T_BIND_NO_OBJECT)
	putInt(scope, int(v.Scope()))
	return nil
}

func impl_MPI_T_cvar_get_index(ctx *C.mpix_ctx, name *C.char, cvar_index *C.int) error {
	if err := tCheck(); err != nil {
		return err
	}
	v, ok := cvar.Lookup(C.GoString(name))
	if !ok {
		return core.Errorf(C.MPI_T_ERR_INVALID_NAME, "no control variable is named %q", C.GoString(name))
	}
	*cvar_index = C.int(v.Index())
	return nil
}

func impl_MPI_T_cvar_handle_alloc(ctx *C.mpix_ctx, cvar_index C.int, obj_handle unsafe.Pointer, handle *C.MPI_T_cvar_handle, count *C.int) error {
	v, err := cvarAt(cvar_index)
	if err != nil {
		return err
	}
	// Every variable is bound to no object, so obj_handle is ignored (MPI-4.1 §15.3.6).
	return tLocked(func() error {
		p, err := mpit.tokens.alloc(C.MPI_T_ERR_OUT_OF_HANDLES)
		if err != nil {
			return err
		}
		h := C.MPI_T_cvar_handle(p)
		mpit.cvars[key(unsafe.Pointer(h))] = v
		*handle = h
		_, n := cvarType(v)
		*count = C.int(n)
		return nil
	})
}

func impl_MPI_T_cvar_handle_free(ctx *C.mpix_ctx, handle *C.MPI_T_cvar_handle) error {
	return tLocked(func() error {
		if _, ok := mpit.cvars[key(unsafe.Pointer(*handle))]; !ok {
			return core.Errorf(C.MPI_T_ERR_INVALID_HANDLE, "invalid control variable handle")
		}
		delete(mpit.cvars, key(unsafe.Pointer(*handle)))
		*handle = nil // MPI_T_CVAR_HANDLE_NULL
		return nil
	})
}

func cvarOf(h C.MPI_T_cvar_handle, buf unsafe.Pointer) (*cvar.Var, error) {
	var v *cvar.Var
	err := tLocked(func() error {
		var ok bool
		if v, ok = mpit.cvars[key(unsafe.Pointer(h))]; !ok {
			return core.Errorf(C.MPI_T_ERR_INVALID_HANDLE, "invalid control variable handle")
		}
		return nil
	})
	if err == nil && buf == nil {
		err = tInvalid("buf must not be NULL")
	}
	return v, err
}

func impl_MPI_T_cvar_read(ctx *C.mpix_ctx, handle C.MPI_T_cvar_handle, buf unsafe.Pointer) error {
	v, err := cvarOf(handle, buf)
	if err != nil {
		return err
	}
	if v.Kind() == cvar.KindString {
		putString((*C.char)(buf), cvar.MaxString+1, v.Text())
	} else {
		*(*C.int)(buf) = C.int(v.Int64())
	}
	return nil
}

func impl_MPI_T_cvar_write(ctx *C.mpix_ctx, handle C.MPI_T_cvar_handle, buf unsafe.Pointer) error {
	v, err := cvarOf(handle, buf)
	if err != nil {
		return err
	}
	if v.Kind() == cvar.KindString {
		n := C.strnlen((*C.char)(buf), cvar.MaxString+1)
		if n > cvar.MaxString {
			return tInvalid("%s takes at most %d characters", v.Name(), cvar.MaxString)
		}
		err = v.SetString(C.GoStringN((*C.char)(buf), C.int(n)))
	} else {
		err = v.SetInt64(int64(*(*C.int)(buf)))
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, cvar.ErrSetNever):
		return core.Errorf(C.MPI_T_ERR_CVAR_SET_NEVER, "%v", err)
	case errors.Is(err, cvar.ErrSetNotNow):
		return core.Errorf(C.MPI_T_ERR_CVAR_SET_NOT_NOW, "%v", err)
	}
	return tInvalid("%v", err)
}

// Categories.

func impl_MPI_T_category_get_num(ctx *C.mpix_ctx, num_cat *C.int) error {
	if err := tCheck(); err != nil {
		return err
	}
	*num_cat = C.int(len(cvar.Categories()))
	return nil
}

func categoryAt(i C.int) (*cvar.Category, error) {
	if err := tCheck(); err != nil {
		return nil, err
	}
	c, ok := cvar.CategoryByIndex(int(i))
	if !ok {
		return nil, core.Errorf(C.MPI_T_ERR_INVALID_INDEX, "no category has index %d", int(i))
	}
	return c, nil
}

func impl_MPI_T_category_get_info(ctx *C.mpix_ctx, cat_index C.int, name *C.char, name_len *C.int, desc *C.char, desc_len *C.int, num_cvars *C.int, num_pvars *C.int, num_categories *C.int) error {
	c, err := categoryAt(cat_index)
	if err != nil {
		return err
	}
	putTString(name, name_len, c.Name())
	putTString(desc, desc_len, c.Desc())
	putInt(num_cvars, len(c.Cvars()))
	putInt(num_pvars, len(c.Pvars()))
	putInt(num_categories, len(c.Subcategories()))
	return nil
}

func impl_MPI_T_category_get_index(ctx *C.mpix_ctx, name *C.char, cat_index *C.int) error {
	if err := tCheck(); err != nil {
		return err
	}
	c, ok := cvar.LookupCategory(C.GoString(name))
	if !ok {
		return core.Errorf(C.MPI_T_ERR_INVALID_NAME, "no category is named %q", C.GoString(name))
	}
	*cat_index = C.int(c.Index())
	return nil
}

// putIndices stores the first n of list in indices, an array of n ints.
func putIndices(n C.int, indices *C.int, list []int) error {
	switch {
	case n < 0:
		return tInvalid("len must not be negative (%d)", int(n))
	case n > 0 && indices == nil:
		return tInvalid("indices must not be NULL when len > 0")
	}
	if n > 0 {
		out := unsafe.Slice(indices, int(n))
		for i := range min(len(out), len(list)) {
			out[i] = C.int(list[i])
		}
	}
	return nil
}

func impl_MPI_T_category_get_cvars(ctx *C.mpix_ctx, cat_index C.int, len_ C.int, indices *C.int) error {
	c, err := categoryAt(cat_index)
	if err != nil {
		return err
	}
	return putIndices(len_, indices, c.Cvars())
}

func impl_MPI_T_category_get_pvars(ctx *C.mpix_ctx, cat_index C.int, len_ C.int, indices *C.int) error {
	c, err := categoryAt(cat_index)
	if err != nil {
		return err
	}
	return putIndices(len_, indices, c.Pvars())
}

func impl_MPI_T_category_get_categories(ctx *C.mpix_ctx, cat_index C.int, len_ C.int, indices *C.int) error {
	c, err := categoryAt(cat_index)
	if err != nil {
		return err
	}
	return putIndices(len_, indices, c.Subcategories())
}

// mpix defines no MPI_T events, so every category has none.
func impl_MPI_T_category_get_num_events(ctx *C.mpix_ctx, cat_index C.int, num_events *C.int) error {
	if _, err := categoryAt(cat_index); err != nil {
		return err
	}
	*num_events = 0
	return nil
}

func impl_MPI_T_category_get_events(ctx *C.mpix_ctx, cat_index C.int, len_ C.int, indices *C.int) error {
	if _, err := categoryAt(cat_index); err != nil {
		return err
	}
	return putIndices(len_, indices, nil)
}

func impl_MPI_T_category_changed(ctx *C.mpix_ctx, update_number *C.int) error {
	if err := tCheck(); err != nil {
		return err
	}
	*update_number = C.int(cvar.Stamp())
	return nil
}

// Performance variables.

func impl_MPI_T_pvar_get_num(ctx *C.mpix_ctx, num_pvar *C.int) error {
	if err := tCheck(); err != nil {
		return err
	}
	*num_pvar = C.int(len(pvar.All()))
	return nil
}

func pvarAt(i C.int) (*pvar.Var, error) {
	if err := tCheck(); err != nil {
		return nil, err
	}
	v, ok := pvar.ByIndex(int(i))
	if !ok {
		return nil, core.Errorf(C.MPI_T_ERR_INVALID_INDEX, "no performance variable has index %d", int(i))
	}
	return v, nil
}

func impl_MPI_T_pvar_get_info(ctx *C.mpix_ctx, pvar_index C.int, name *C.char, name_len *C.int, verbosity *C.int, var_class *C.int, datatype_ *C.MPI_Datatype, enumtype *C.MPI_T_enum, desc *C.char, desc_len *C.int, bind *C.int, readonly *C.int, continuous *C.int, atomic *C.int) error {
	v, err := pvarAt(pvar_index)
	if err != nil {
		return err
	}
	putTString(name, name_len, v.Name())
	putTString(desc, desc_len, v.Desc())
	putInt(verbosity, int(v.Verbosity()))
	putInt(var_class, int(v.Class()))
	if datatype_ != nil {
		*datatype_ = C.MPI_UNSIGNED_LONG_LONG // every pvar value is a uint64
	}
	if enumtype != nil {
		*enumtype = nil
	}
	putInt(bind, C.MPI_T_BIND_NO_OBJECT)
	flag := func(p *C.int, b bool) {
		if p != nil {
			setFlag(p, b)
		}
	}
	flag(readonly, v.Readonly())
	flag(continuous, v.Continuous())
	flag(atomic, v.Atomic())
	return nil
}

func impl_MPI_T_pvar_get_index(ctx *C.mpix_ctx, name *C.char, var_class C.int, pvar_index *C.int) error {
	if err := tCheck(); err != nil {
		return err
	}
	v, ok := pvar.Lookup(C.GoString(name), pvar.Class(var_class))
	if !ok {
		return core.Errorf(C.MPI_T_ERR_INVALID_NAME, "no performance variable of class %d is named %q", int(var_class), C.GoString(name))
	}
	*pvar_index = C.int(v.Index())
	return nil
}

func impl_MPI_T_pvar_session_create(ctx *C.mpix_ctx, pe_session *C.MPI_T_pvar_session) error {
	return tLocked(func() error {
		p, err := mpit.tokens.alloc(C.MPI_T_ERR_OUT_OF_SESSIONS)
		if err != nil {
			return err
		}
		s := C.MPI_T_pvar_session(p)
		mpit.sessions[key(unsafe.Pointer(s))] = pvar.NewSession()
		*pe_session = s
		return nil
	})
}

// sessionLocked returns the session of a token. The caller holds mpit.mu.
func sessionLocked(s C.MPI_T_pvar_session) (*pvar.Session, error) {
	ps, ok := mpit.sessions[key(unsafe.Pointer(s))]
	if !ok {
		return nil, core.Errorf(C.MPI_T_ERR_INVALID_SESSION, "invalid performance variable session")
	}
	return ps, nil
}

func impl_MPI_T_pvar_session_free(ctx *C.mpix_ctx, pe_session *C.MPI_T_pvar_session) error {
	return tLocked(func() error {
		ps, err := sessionLocked(*pe_session)
		if err != nil {
			return err
		}
		ps.Close()
		delete(mpit.sessions, key(unsafe.Pointer(*pe_session)))
		for k, e := range mpit.pvars {
			if e.s == ps {
				delete(mpit.pvars, k)
			}
		}
		*pe_session = nil // MPI_T_PVAR_SESSION_NULL
		return nil
	})
}

func impl_MPI_T_pvar_handle_alloc(ctx *C.mpix_ctx, pe_session C.MPI_T_pvar_session, pvar_index C.int, obj_handle unsafe.Pointer, handle *C.MPI_T_pvar_handle, count *C.int) error {
	v, err := pvarAt(pvar_index)
	if err != nil {
		return err
	}
	return tLocked(func() error {
		ps, err := sessionLocked(pe_session)
		if err != nil {
			return err
		}
		p, err := mpit.tokens.alloc(C.MPI_T_ERR_OUT_OF_HANDLES)
		if err != nil {
			return err
		}
		h, err := ps.Alloc(v)
		if err != nil {
			return pvarErr(err)
		}
		ph := C.MPI_T_pvar_handle(p)
		mpit.pvars[key(unsafe.Pointer(ph))] = pvarEntry{h, ps}
		*handle = ph
		*count = C.int(h.Count())
		return nil
	})
}

// pvarErr turns an error of core/pvar into its MPI_T code.
func pvarErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pvar.ErrNoStartStop):
		return core.Errorf(C.MPI_T_ERR_PVAR_NO_STARTSTOP, "%v", err)
	case errors.Is(err, pvar.ErrNoWrite):
		return core.Errorf(C.MPI_T_ERR_PVAR_NO_WRITE, "%v", err)
	case errors.Is(err, pvar.ErrWrongSession), errors.Is(err, pvar.ErrFreed):
		return core.Errorf(C.MPI_T_ERR_INVALID_HANDLE, "%v", err)
	}
	return tInvalid("%v", err)
}

// pvarOf resolves a session and one of its handles. With all set, the handle may be
// MPI_T_PVAR_ALL_HANDLES, which comes back as a nil *pvar.Handle.
func pvarOf(s C.MPI_T_pvar_session, h C.MPI_T_pvar_handle, all bool) (*pvar.Session, *pvar.Handle, error) {
	var ps *pvar.Session
	var ph *pvar.Handle
	err := tLocked(func() error {
		var err error
		if ps, err = sessionLocked(s); err != nil {
			return err
		}
		if all && h == C.MPI_T_PVAR_ALL_HANDLES {
			return nil
		}
		e, ok := mpit.pvars[key(unsafe.Pointer(h))]
		if !ok || e.s != ps {
			return core.Errorf(C.MPI_T_ERR_INVALID_HANDLE, "invalid performance variable handle for this session")
		}
		ph = e.h
		return nil
	})
	return ps, ph, err
}

func impl_MPI_T_pvar_handle_free(ctx *C.mpix_ctx, pe_session C.MPI_T_pvar_session, handle *C.MPI_T_pvar_handle) error {
	ps, ph, err := pvarOf(pe_session, *handle, false)
	if err != nil {
		return err
	}
	if err := ps.Free(ph); err != nil {
		return pvarErr(err)
	}
	mpit.mu.Lock()
	delete(mpit.pvars, key(unsafe.Pointer(*handle)))
	mpit.mu.Unlock()
	*handle = nil // MPI_T_PVAR_HANDLE_NULL
	return nil
}

func impl_MPI_T_pvar_start(ctx *C.mpix_ctx, pe_session C.MPI_T_pvar_session, handle C.MPI_T_pvar_handle) error {
	ps, ph, err := pvarOf(pe_session, handle, true)
	switch {
	case err != nil:
		return err
	case ph == nil:
		return pvarErr(ps.StartAll())
	}
	return pvarErr(ph.Start(ps))
}

func impl_MPI_T_pvar_stop(ctx *C.mpix_ctx, pe_session C.MPI_T_pvar_session, handle C.MPI_T_pvar_handle) error {
	ps, ph, err := pvarOf(pe_session, handle, true)
	switch {
	case err != nil:
		return err
	case ph == nil:
		return pvarErr(ps.StopAll())
	}
	return pvarErr(ph.Stop(ps))
}

func impl_MPI_T_pvar_reset(ctx *C.mpix_ctx, pe_session C.MPI_T_pvar_session, handle C.MPI_T_pvar_handle) error {
	ps, ph, err := pvarOf(pe_session, handle, true)
	switch {
	case err != nil:
		return err
	case ph == nil:
		return pvarErr(ps.ResetAll())
	}
	return pvarErr(ph.Reset(ps))
}

// pvarBuf resolves a handle for an operation on its value in buf.
func pvarBuf(s C.MPI_T_pvar_session, h C.MPI_T_pvar_handle, buf unsafe.Pointer) (*pvar.Session, *pvar.Handle, []uint64, error) {
	ps, ph, err := pvarOf(s, h, false)
	if err != nil {
		return nil, nil, nil, err
	}
	if buf == nil {
		return nil, nil, nil, tInvalid("buf must not be NULL")
	}
	return ps, ph, unsafe.Slice((*uint64)(buf), ph.Count()), nil
}

func impl_MPI_T_pvar_read(ctx *C.mpix_ctx, pe_session C.MPI_T_pvar_session, handle C.MPI_T_pvar_handle, buf unsafe.Pointer) error {
	ps, ph, vals, err := pvarBuf(pe_session, handle, buf)
	if err != nil {
		return err
	}
	return pvarErr(ph.Read(ps, vals))
}

func impl_MPI_T_pvar_readreset(ctx *C.mpix_ctx, pe_session C.MPI_T_pvar_session, handle C.MPI_T_pvar_handle, buf unsafe.Pointer) error {
	ps, ph, vals, err := pvarBuf(pe_session, handle, buf)
	if err != nil {
		return err
	}
	return pvarErr(ph.ReadReset(ps, vals))
}

func impl_MPI_T_pvar_write(ctx *C.mpix_ctx, pe_session C.MPI_T_pvar_session, handle C.MPI_T_pvar_handle, buf unsafe.Pointer) error {
	ps, ph, vals, err := pvarBuf(pe_session, handle, buf)
	if err != nil {
		return err
	}
	return pvarErr(ph.Write(ps, vals))
}

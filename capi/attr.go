package main

/*
#include "capi.h"

void *mpix_attr_value(int slot, int value);
*/
import "C"

import (
	"unsafe"

	"mpix/core"
	"mpix/core/attr"
	"mpix/core/datatype"
)

// Attribute caching (MPI-4.1 §7.7) on communicators and datatypes, with the MPI-1
// names. Keyvals and stores live in core/attr; here the user's C callbacks become
// attr.CopyFunc/DeleteFunc through the trampolines in attr.c, and the predefined
// attributes get their values. Windows will plug in through attrObject.

// attrObject is an object that carries attributes: its store, its handle (which
// callbacks receive) and its kind (which keyvals must match).
type attrObject struct {
	store  *attr.Store
	handle int32
	kind   attr.Kind
}

func commObject(c *core.Comm) attrObject {
	return attrObject{&c.Attrs, c.Handle, attr.Comm}
}

func typeObject(t *datatype.Type) attrObject {
	return attrObject{&t.Attrs, t.Handle(), attr.Datatype}
}

// callbackError turns the code a user callback returned into an error that keeps the
// code's class (and a user-defined code as it is, so MPI_Comm_dup returns exactly the
// code the callback chose).
func callbackError(what string, kv *attr.Keyval, rc C.int) error {
	code := int(rc)
	class, err := core.ErrorClass(code)
	if err != nil || class == core.Success {
		return core.Errorf(core.ErrOther, "the %s callback of %s returned %d, which is no MPI error code", what, kv, code)
	}
	text, _ := core.ErrorString(code)
	e := core.Errorf(class, "the %s callback of %s returned error code %d (%s)", what, kv, code, text)
	if code != class && code&userCodeBit != 0 {
		e.Class = code // a user code passes through unchanged (core.InstanceCode keeps it)
	}
	return e
}

// userCodeBit marks the codes and classes made by MPI_Add_error_code/class.
const userCodeBit = 0x40000000

// cCopy wraps a user's C copy callback; NULL (MPI_*_NULL_COPY_FN) copies nothing.
func cCopy(fn unsafe.Pointer) attr.CopyFunc {
	if fn == nil {
		return nil
	}
	return func(kv *attr.Keyval, obj int32, val uintptr) (uintptr, bool, error) {
		var out C.uintptr_t
		var flag C.int
		rc := C.mpix_attr_copy(fn, C.int(obj), C.int(kv.Handle()), C.uintptr_t(kv.Extra()), C.uintptr_t(val), &out, &flag)
		if rc != C.MPI_SUCCESS {
			return 0, false, callbackError("copy", kv, rc)
		}
		return uintptr(out), flag != 0, nil
	}
}

// cDelete wraps a user's C delete callback; NULL (MPI_*_NULL_DELETE_FN) does nothing.
func cDelete(fn unsafe.Pointer) attr.DeleteFunc {
	if fn == nil {
		return nil
	}
	return func(kv *attr.Keyval, obj int32, val uintptr) error {
		rc := C.mpix_attr_delete(fn, C.int(obj), C.int(kv.Handle()), C.uintptr_t(val), C.uintptr_t(kv.Extra()))
		if rc != C.MPI_SUCCESS {
			return callbackError("delete", kv, rc)
		}
		return nil
	}
}

func createKeyval(kind attr.Kind, copyFn, deleteFn unsafe.Pointer, keyval *C.int, extra unsafe.Pointer) error {
	kv, err := attr.Create(kind, cCopy(copyFn), cDelete(deleteFn), uintptr(extra))
	if err != nil {
		return err
	}
	*keyval = C.int(kv.Handle())
	return nil
}

func freeKeyval(kind attr.Kind, keyval *C.int) error {
	kv, err := attr.Lookup(int32(*keyval), kind)
	if err != nil {
		return err
	}
	if err := kv.Free(); err != nil {
		return err
	}
	*keyval = C.MPI_KEYVAL_INVALID
	return nil
}

func setAttr(o attrObject, keyval C.int, val unsafe.Pointer) error {
	kv, err := attr.Lookup(int32(keyval), o.kind)
	if err != nil {
		return err
	}
	return o.store.Set(kv, o.handle, uintptr(val))
}

func deleteAttr(o attrObject, keyval C.int) error {
	kv, err := attr.Lookup(int32(keyval), o.kind)
	if err != nil {
		return err
	}
	return o.store.Delete(kv, o.handle)
}

// getAttr stores the attribute's value in *(void **)out and sets *flag.
func getAttr(o attrObject, keyval C.int, out unsafe.Pointer, flag *C.int) error {
	if out == nil {
		return core.Errorf(core.ErrArg, "attribute_val must not be NULL")
	}
	kv, err := attr.Lookup(int32(keyval), o.kind)
	if err != nil {
		return err
	}
	var val uintptr
	var ok bool
	if kv.Predefined() {
		val, ok = predefinedAttr(kv)
	} else {
		val, ok = o.store.Get(kv)
	}
	if ok {
		*(*uintptr)(out) = val
	}
	setFlag(flag, ok)
	return nil
}

// predefinedAttr is the value of a predefined communicator attribute. As in MPICH,
// every communicator answers them, not only MPI_COMM_WORLD. C programs get the
// address of an int; the Fortran twin of a key gets the value itself.
func predefinedAttr(kv *attr.Keyval) (uintptr, bool) {
	var v int
	switch kv.CKey() {
	case attr.TagUB:
		v = core.TagUB
	case attr.Host:
		v = C.MPI_PROC_NULL // no process is distinguished as the host
	case attr.IO:
		v = C.MPI_ANY_SOURCE // every process can do I/O
	case attr.WtimeIsGlobal:
		v = 0 // each process's clock starts when it loads the library
	case attr.UniverseSize:
		v = core.UniverseSize()
	case attr.LastUsedCode:
		v = core.LastUsedCode()
	case attr.AppNum:
		v = core.AppNum()
	default:
		return 0, false // window keyvals never reach here: Lookup checks the kind
	}
	if kv.Handle() != kv.CKey() {
		return uintptr(v), true
	}
	slot := int(kv.CKey()&0xf) >> 1
	return uintptr(C.mpix_attr_value(C.int(slot), C.int(v))), true
}

// ---- communicators ----

// copyCommAttrs gives a duplicate communicator the attributes its parent's copy
// callbacks keep (MPI_Comm_dup, MPI_Comm_idup when it completes).
func copyCommAttrs(parent, child *core.Comm) error {
	return parent.Attrs.CopyTo(&child.Attrs, parent.Handle, child.Handle)
}

// deleteCommAttrs deletes a communicator's attributes before MPI_Comm_free lets it go.
// The predefined communicators keep theirs: freeing them is an error, which
// core.Comm.Free reports.
func deleteCommAttrs(c *core.Comm) error {
	if c == core.CommWorld || c == core.CommSelf {
		return nil
	}
	return c.Attrs.DeleteAll(c.Handle)
}

// finalizeAttrs runs first in MPI_Finalize: MPI frees MPI_COMM_SELF's attributes as
// if MPI_Comm_free were called on it (newest first), so libraries can hook the end of
// the program; MPI_COMM_WORLD's follow, as in MPICH.
func finalizeAttrs() error {
	for _, c := range []*core.Comm{core.CommSelf, core.CommWorld} {
		if err := c.Attrs.DeleteAll(c.Handle); err != nil {
			return err
		}
	}
	return nil
}

func impl_MPI_Comm_create_keyval(ctx *C.mpix_ctx, comm_copy_attr_fn unsafe.Pointer, comm_delete_attr_fn unsafe.Pointer, comm_keyval *C.int, extra_state unsafe.Pointer) error {
	return createKeyval(attr.Comm, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state)
}

func impl_MPI_Comm_free_keyval(ctx *C.mpix_ctx, comm_keyval *C.int) error {
	return freeKeyval(attr.Comm, comm_keyval)
}

func impl_MPI_Comm_set_attr(ctx *C.mpix_ctx, comm *core.Comm, comm_keyval C.int, attribute_val unsafe.Pointer) error {
	return setAttr(commObject(comm), comm_keyval, attribute_val)
}

func impl_MPI_Comm_get_attr(ctx *C.mpix_ctx, comm *core.Comm, comm_keyval C.int, attribute_val unsafe.Pointer, flag *C.int) error {
	return getAttr(commObject(comm), comm_keyval, attribute_val, flag)
}

func impl_MPI_Comm_delete_attr(ctx *C.mpix_ctx, comm *core.Comm, comm_keyval C.int) error {
	return deleteAttr(commObject(comm), comm_keyval)
}

// The MPI-1 names: communicator keyvals with MPI_Copy_function/MPI_Delete_function,
// which have the same C types as the MPI-2 communicator callbacks.

func impl_MPI_Keyval_create(ctx *C.mpix_ctx, copy_fn unsafe.Pointer, delete_fn unsafe.Pointer, keyval *C.int, extra_state unsafe.Pointer) error {
	return createKeyval(attr.Comm, copy_fn, delete_fn, keyval, extra_state)
}

func impl_MPI_Keyval_free(ctx *C.mpix_ctx, keyval *C.int) error {
	return freeKeyval(attr.Comm, keyval)
}

func impl_MPI_Attr_put(ctx *C.mpix_ctx, comm *core.Comm, keyval C.int, attribute_val unsafe.Pointer) error {
	return setAttr(commObject(comm), keyval, attribute_val)
}

func impl_MPI_Attr_get(ctx *C.mpix_ctx, comm *core.Comm, keyval C.int, attribute_val unsafe.Pointer, flag *C.int) error {
	return getAttr(commObject(comm), keyval, attribute_val, flag)
}

func impl_MPI_Attr_delete(ctx *C.mpix_ctx, comm *core.Comm, keyval C.int) error {
	return deleteAttr(commObject(comm), keyval)
}

// ---- datatypes ----

// copyTypeAttrs gives a type made by MPI_Type_dup the attributes the copy callbacks
// keep; if one fails, the new type is freed and the callback's error returned.
func copyTypeAttrs(old, t *datatype.Type) error {
	if err := old.Attrs.CopyTo(&t.Attrs, old.Handle(), t.Handle()); err != nil {
		_ = datatype.Free(t)
		return err
	}
	return nil
}

// deleteTypeAttrs deletes a type's attributes when MPI_Type_free drops the user's last
// handle to it; a delete callback's error stops the free.
func deleteTypeAttrs(t *datatype.Type) error {
	if !t.LastHandle() {
		return nil
	}
	return t.Attrs.DeleteAll(t.Handle())
}

func impl_MPI_Type_create_keyval(ctx *C.mpix_ctx, type_copy_attr_fn unsafe.Pointer, type_delete_attr_fn unsafe.Pointer, type_keyval *C.int, extra_state unsafe.Pointer) error {
	return createKeyval(attr.Datatype, type_copy_attr_fn, type_delete_attr_fn, type_keyval, extra_state)
}

func impl_MPI_Type_free_keyval(ctx *C.mpix_ctx, type_keyval *C.int) error {
	return freeKeyval(attr.Datatype, type_keyval)
}

func impl_MPI_Type_set_attr(ctx *C.mpix_ctx, datatype_ *datatype.Type, type_keyval C.int, attribute_val unsafe.Pointer) error {
	return setAttr(typeObject(datatype_), type_keyval, attribute_val)
}

func impl_MPI_Type_get_attr(ctx *C.mpix_ctx, datatype_ *datatype.Type, type_keyval C.int, attribute_val unsafe.Pointer, flag *C.int) error {
	return getAttr(typeObject(datatype_), type_keyval, attribute_val, flag)
}

func impl_MPI_Type_delete_attr(ctx *C.mpix_ctx, datatype_ *datatype.Type, type_keyval C.int) error {
	return deleteAttr(typeObject(datatype_), type_keyval)
}

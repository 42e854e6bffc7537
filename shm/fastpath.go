package shm

/*
#cgo CFLAGS: -I${SRCDIR}/../include -I${SRCDIR}/../vci -I${SRCDIR}/../core -O2 -Wall
#include <stddef.h>
#include "fastabi.h"

// The facts of fastabi.h that Go mirrors, by name: a structure's size, a field's
// offset ("struct.field") or a constant.
#define SIZE(t) {#t, sizeof(t)}
#define OFF(t, f) {#t "." #f, offsetof(t, f)}
#define CONST(c) {#c, (size_t)(uint32_t)(c)}
static const struct { const char *name; size_t value; } shm_facts[] = {
    SIZE(mpix_vci_shared), OFF(mpix_vci_shared, idle), OFF(mpix_vci_shared, locks), OFF(mpix_vci_shared, spin_limit),
    OFF(mpix_vci_shared, owned), OFF(mpix_vci_shared, shm), OFF(mpix_vci_shared, fast_msgs), OFF(mpix_vci_shared, index),
    OFF(mpix_vci_shared, lite), CONST(MPIX_IDLE_RECV), CONST(MPIX_IDLE_SEND),
    SIZE(mpix_shm_view), OFF(mpix_shm_view, fb_in), OFF(mpix_shm_view, recv_tail), OFF(mpix_shm_view, free_mask),
    SIZE(mpix_wire_header), OFF(mpix_wire_header, offset),
    SIZE(mpix_fastbox), SIZE(mpix_cell_head), OFF(mpix_cell_head, seq),
    CONST(MPIX_SHM_RECV_TAIL), CONST(MPIX_SHM_FREE_TAIL),
    SIZE(mpix_comm_shared), OFF(mpix_comm_shared, vci), OFF(mpix_comm_shared, peers),
    SIZE(mpix_fast_header), OFF(mpix_fast_header, waiters), OFF(mpix_fast_header, seats),
    SIZE(mpix_lreq), OFF(mpix_lreq, buf), OFF(mpix_lreq, st_tag),
    SIZE(mpix_vci_lite), OFF(mpix_vci_lite, req),
    CONST(MPIX_LITE_TAG), CONST(MPIX_LITE_SLOTS), CONST(MPIX_LITE_VCIS), CONST(MPIX_REQUEST_COMPLETED_SEND),
    CONST(MPIX_REQ_KIND_MASK), CONST(MPIX_REQ_GO), CONST(MPIX_REQ_THREADCOMM), CONST(MPIX_LITE_MASK),
};
static int shm_nfacts(void) { return sizeof shm_facts / sizeof shm_facts[0]; }
static const char *shm_fact_name(int i) { return shm_facts[i].name; }
static size_t shm_fact_value(int i) { return shm_facts[i].value; }

static void shm_set_type(int i, MPI_Datatype dt, uint32_t size)
{
    mpix_fast_dthandle[i] = dt;
    mpix_fast_dtsize[i] = size;
}
*/
import "C"

import (
	"fmt"
	"unsafe"

	"mpix/transport"
)

// The C fast path (fastabi.h, fast.c, lite.c) moves small contiguous messages between
// node-local processes without entering Go, on the structures FastView exposes. It
// reads some of core's memory too (the communicator table and the lite requests),
// whose Go layout core reports; CheckLayout compares everything C and Go share before
// EnableFastPath turns the path on.

// Layout is the Go side of fastabi.h's facts: sizes ("mpix_lreq"), field offsets
// ("mpix_lreq.buf") and constants ("MPIX_LITE_TAG"), by their C names.
type Layout map[string]uintptr

// ownLayout is the facts of the types shm and transport own.
func ownLayout() Layout {
	var sv FastView
	var h transport.Header
	return Layout{
		"mpix_shm_view": unsafe.Sizeof(sv), "mpix_shm_view.fb_in": unsafe.Offsetof(sv.FbIn),
		"mpix_shm_view.recv_tail": unsafe.Offsetof(sv.RecvTail), "mpix_shm_view.free_mask": unsafe.Offsetof(sv.FreeMask),
		"mpix_wire_header": unsafe.Sizeof(h), "mpix_wire_header.offset": unsafe.Offsetof(h.Offset),
		"mpix_fastbox": FastboxHeaderSize, "mpix_cell_head": CellHeaderSize, "mpix_cell_head.seq": CellSeqOffset,
		"MPIX_SHM_RECV_TAIL": RecvTailOffset, "MPIX_SHM_FREE_TAIL": FreeTailOffset,
	}
}

// CheckLayout compares fastabi.h with the Go types it mirrors: shm's own, and
// others' as others (vci, core) report them. Every fact C names must have a Go value.
func CheckLayout(others Layout) error {
	return checkLayout(others, true)
}

func checkLayout(others Layout, all bool) error {
	want := ownLayout()
	for k, v := range others {
		want[k] = v
	}
	for i := range int(C.shm_nfacts()) {
		name := C.GoString(C.shm_fact_name(C.int(i)))
		got := uintptr(C.shm_fact_value(C.int(i)))
		w, ok := want[name]
		switch {
		case !ok && all:
			return fmt.Errorf("shm/fastabi.h's %s has no Go counterpart", name)
		case ok && w != got:
			return fmt.Errorf("shm/fastabi.h's %s is %d in C and %d in Go", name, got, w)
		}
	}
	return nil
}

// FastType is a builtin datatype C may move: its data is Size bytes from the
// buffer's start.
type FastType struct {
	Handle int32
	Size   int
}

// EnableFastPath hands C the communicator table (core's) and the datatypes it may
// move. Call it once, after CheckLayout passed and before any communication; until
// then every C fast path answers "not here".
func EnableFastPath(table unsafe.Pointer, types []FastType) {
	for _, t := range types {
		C.shm_set_type(C.int(t.Handle&0xff), C.MPI_Datatype(t.Handle), C.uint32_t(t.Size))
	}
	C.mpix_fast_table = (*C.mpix_fast_header)(table)
}

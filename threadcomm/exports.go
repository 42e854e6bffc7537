package threadcomm

/*
#include "threadcomm.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

// The Go functions the data plane's C calls.

// mpixTcPoll is a round of progress on the engine of threadcomm h's thread messages
// (a C receive waiting for another process).
//
//export mpixTcPoll
func mpixTcPoll(h C.MPI_Comm) { core.ThreadcommPoll(int32(h)) }

// mpixTcWaitRemote makes rounds of progress on threadcomm h's engine until the tail
// of the calling thread's queue moves from seen (something was pushed) or a while has
// passed: a C receive from another process waits here, in one cgo call rather than
// one per poll.
//
//export mpixTcWaitRemote
func mpixTcWaitRemote(h C.MPI_Comm, tail *unsafe.Pointer, seen unsafe.Pointer) {
	core.ThreadcommWaitRemote(int32(h), tail, seen)
}

// mpixTcMrecv receives a message from another process, which C matched, into cap
// bytes at buf; it sets *got to the bytes received and returns the error class. With
// rdv set, a rendezvous still arriving is left running and its Go request goes to
// *rdv (mpixTcPartnerDone completes it); otherwise it waits.
//
//export mpixTcMrecv
func mpixTcMrecv(msg C.int32_t, buf unsafe.Pointer, capBytes C.int64_t, got *C.int64_t, rdv *C.int32_t) C.int {
	st, pending := core.ThreadcommMrecv(int32(msg), buf, int64(capBytes), rdv != nil)
	if pending != nil {
		*rdv = C.int32_t(pending.Handle)
	}
	*got = C.int64_t(st.Bytes)
	return C.int(st.Error)
}

// mpixTcDropMessage forgets a message from another process nobody received.
//
//export mpixTcDropMessage
func mpixTcDropMessage(msg C.int32_t) { core.ThreadcommDropMessage(int32(msg)) }

// mpixTcProgress lets a long C wait make a round of progress on every VCI, which
// other requests, and other communicators' traffic, may need.
//
//export mpixTcProgress
func mpixTcProgress() { core.Progress() }

// mpixTcTypeView reports whether h is a valid, committed datatype, with its extent
// and the bytes one element packs into. Like mpixTcPackData it raises nothing: a
// thread asks before it commits to the C path, and a bad datatype then goes to Go's
// own collective, which reports it on the threadcomm's error handler.
//
//export mpixTcTypeView
func mpixTcTypeView(h C.MPI_Datatype, extent, size *C.int64_t) (ok C.int) {
	defer func() {
		if recover() != nil {
			ok = 0
		}
	}()
	t, err := datatype.Lookup(int32(h))
	if err != nil || !t.Committed() {
		return 0
	}
	*extent = C.int64_t(t.Extent())
	*size = C.int64_t(datatype.PackedSize(1, t))
	return 1
}

// mpixTcPackData packs count elements of h at buf into packed (size bytes), or, with
// unpack, unpacks them from packed into buf; it returns 1 when it did
// (mpixTcTypeView said yes for h, so only a wrong size refuses).
//
//export mpixTcPackData
func mpixTcPackData(unpack C.int, buf unsafe.Pointer, count C.int64_t, h C.MPI_Datatype, packed unsafe.Pointer, size C.int64_t) (ok C.int) {
	defer func() {
		if recover() != nil {
			ok = 0
		}
	}()
	t, err := datatype.Lookup(int32(h))
	if err != nil || !t.Committed() || count < 0 || size < 0 {
		return 0
	}
	if s := datatype.PackedSize(1, t); s > 0 && int64(count) > math.MaxInt64/s {
		return 0 // Go's path reports MPI_ERR_COUNT
	}
	need := datatype.PackedSize(int64(count), t)
	if need > int64(size) {
		return 0
	}
	if need == 0 {
		return 1
	}
	if packed == nil {
		return 0
	}
	data := unsafe.Slice((*byte)(packed), need)
	if unpack != 0 {
		datatype.Unpack(data, buf, int64(count), t, 0)
	} else {
		datatype.Pack(data, buf, int64(count), t, 0)
	}
	return 1
}

// Raise reports an error class the C found (a truncated message) through the error
// handler of the calling thread's view of comm, as procedure fn; capi sets it.
var Raise func(fn string, comm int32, class int) int

// mpixTcRaise is Raise for the C.
//
//export mpixTcRaise
func mpixTcRaise(fn *C.char, comm C.MPI_Comm, class C.int) C.int {
	return C.int(Raise(C.GoString(fn), int32(comm), int(class)))
}

// mpixTcStartableGo tells the C MPI_Startall whether a request of Go's can start
// (no: C misses, and Go's MPI_Startall reports the error).
//
//export mpixTcStartableGo
func mpixTcStartableGo(h C.MPI_Request) (ok C.int) {
	defer func() {
		if recover() != nil {
			ok = 0
		}
	}()
	r, err := core.LookupRequest(int32(h))
	if err != nil || r == nil || core.CheckStart(r) != nil {
		return 0
	}
	return 1
}

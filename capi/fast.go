package main

/*
#include "fast.h"
#include "threadcomm.h"
*/
import "C"

import (
	"fmt"

	"mpix/core"
	"mpix/core/datatype"
)

// The C fast paths (fast.c) get the communicator table and the sizes of the builtin
// datatypes at load time, once the layouts of fast.h are known to match Go's. Should
// they ever differ (a change on one side only), the fast paths stay off: every call
// then takes the Go path, which is slower but right.
func init() {
	if err := checkFastLayout(); err != nil {
		return
	}
	for _, t := range datatype.Builtins() {
		// Only types whose data is their size in bytes from the buffer's start.
		if t.Size() > 0 && t.Contiguous() && t.TrueLB() == 0 && t.LB() == 0 && t.Extent() == t.Size() {
			i := t.Handle() & 0xff
			C.mpix_fast_dthandle[i] = C.MPI_Datatype(t.Handle())
			C.mpix_fast_dtsize[i] = C.uint32_t(t.Size())
		}
	}
	C.mpix_fast_table = (*C.mpix_fast_header)(core.FastTable())
}

// mpixGoProgressFrom is the same for a C wait on VCI vci (lite.c), with Go's rule for
// global progress (core.ProgressFrom).
//
//export mpixGoProgressFrom
func mpixGoProgressFrom(vci C.uint32_t) { core.ProgressFrom(int(vci)) }

// checkFastLayout compares fast.h's structures with the Go types they mirror.
func checkFastLayout() error {
	for i, want := range core.FastLayout() {
		if got := uintptr(C.mpix_fast_layout(C.int(i))); got != want {
			return fmt.Errorf("fast.h layout fact %d is %d in C and %d in Go", i, got, want)
		}
	}
	if tc := C.MPI_Request(int32(-0x14000000)); (C.mpix_tc_is_request(tc) != 0) != isThreadcommRequest(tc) {
		return fmt.Errorf("wait.go's isThreadcommRequest disagrees with threadcomm/tc.h")
	}
	return nil
}

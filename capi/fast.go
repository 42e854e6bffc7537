package main

/*
#include "fastabi.h"
#include "threadcomm.h"
void mpix_dispatch_init(void);
*/
import "C"

import (
	"fmt"
	"os"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/shm"
	"mpix/vci"
)

// The C fast paths (fast.h) get the communicator table and the sizes of the builtin
// datatypes at load time, once the C layouts are known to match Go's. Should they ever
// differ (a change on one side only), the library says so once and runs without
// them: every call then takes the Go path, which is slower but right.
func init() {
	if err := checkFastLayout(); err != nil {
		fmt.Fprintf(os.Stderr, "mpix: C fast paths off: %v\n", err)
		return
	}
	var types []shm.FastType
	for _, t := range datatype.Builtins() {
		// Only types whose data is their size in bytes from the buffer's start.
		if t.Size() > 0 && t.Contiguous() && t.TrueLB() == 0 && t.LB() == 0 && t.Extent() == t.Size() {
			types = append(types, shm.FastType{Handle: t.Handle(), Size: int(t.Size())})
		}
	}
	C.mpix_dispatch_init()
	shm.EnableFastPath(core.FastTable(), types)
}

// mpixGoProgressFrom is the same for a C wait on VCI vci (shm/lite.c, through
// dispatch.c), with Go's rule for global progress (core.ProgressFrom).
//
//export mpixGoProgressFrom
func mpixGoProgressFrom(vci C.uint32_t) { core.ProgressFrom(int(vci)) }

// checkFastLayout compares the C structures and constants the fast paths share with
// Go against the Go side.
func checkFastLayout() error {
	// One check over every fact, by C name: the VCI page (vci.h), core's communicator
	// table, lite requests and request-handle kinds (core/handles.h), shm's own.
	facts := vci.Layout()
	for k, v := range core.FastLayout() {
		facts[k] = v
	}
	return shm.CheckLayout(facts)
}

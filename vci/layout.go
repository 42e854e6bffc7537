package vci

/*
#include <stddef.h>
#include "vci.h"

static size_t vci_layout(int what)
{
    switch (what) {
    case 0: return sizeof(mpix_vci_shared);
    case 1: return offsetof(mpix_vci_shared, idle);
    case 2: return offsetof(mpix_vci_shared, locks);
    case 3: return offsetof(mpix_vci_shared, spin_limit);
    case 4: return offsetof(mpix_vci_shared, owned);
    case 5: return offsetof(mpix_vci_shared, shm);
    case 6: return offsetof(mpix_vci_shared, fast_msgs);
    case 7: return offsetof(mpix_vci_shared, index);
    case 8: return offsetof(mpix_vci_shared, lite);
    case 9: return MPIX_IDLE_RECV;
    case 10: return MPIX_IDLE_SEND;
    }
    return (size_t)-1;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// CheckLayout compares vci.h's mpix_vci_shared with Shared. C and Go take one lock
// word and read each other's fields, so the fast paths must stay off when they
// disagree.
func CheckLayout() error {
	var s Shared
	want := []uintptr{
		unsafe.Sizeof(s), unsafe.Offsetof(s.Idle), unsafe.Offsetof(s.Locks), unsafe.Offsetof(s.SpinLimit),
		unsafe.Offsetof(s.Owned), unsafe.Offsetof(s.Shm), unsafe.Offsetof(s.FastMsgs), unsafe.Offsetof(s.Index),
		unsafe.Offsetof(s.Lite), IdleRecv, IdleSend,
	}
	for i, w := range want {
		if got := uintptr(C.vci_layout(C.int(i))); got != w {
			return fmt.Errorf("vci.h's mpix_vci_shared disagrees with vci.Shared (fact %d: %d in C, %d in Go)", i, got, w)
		}
	}
	return nil
}

package vci

import "unsafe"

// Layout is the Go side of vci.h's mpix_vci_shared, by C names, for the load-time
// check of everything C and Go share (shm.CheckLayout: fastabi.h includes vci.h). C and
// Go take one lock word and read each other's fields, so the fast paths must stay off
// when they disagree.
func Layout() map[string]uintptr {
	var s Shared
	return map[string]uintptr{
		"mpix_vci_shared": unsafe.Sizeof(s), "mpix_vci_shared.idle": unsafe.Offsetof(s.Idle),
		"mpix_vci_shared.locks": unsafe.Offsetof(s.Locks), "mpix_vci_shared.spin_limit": unsafe.Offsetof(s.SpinLimit),
		"mpix_vci_shared.owned": unsafe.Offsetof(s.Owned), "mpix_vci_shared.shm": unsafe.Offsetof(s.Shm),
		"mpix_vci_shared.fast_msgs": unsafe.Offsetof(s.FastMsgs), "mpix_vci_shared.index": unsafe.Offsetof(s.Index),
		"mpix_vci_shared.lite": unsafe.Offsetof(s.Lite), "MPIX_IDLE_RECV": IdleRecv, "MPIX_IDLE_SEND": IdleSend,
	}
}

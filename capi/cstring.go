package main

/*
#include "capi.h"
*/
import "C"

import "unsafe"

// putString copies s into a C buffer of capacity bytes (room for the NUL included),
// truncating if needed, and returns the number of characters written without the NUL.
func putString(dst *C.char, capacity int, s string) int {
	if capacity <= 0 {
		return 0
	}
	if len(s) > capacity-1 {
		s = s[:capacity-1]
	}
	buf := unsafe.Slice((*byte)(unsafe.Pointer(dst)), capacity)
	copy(buf, s)
	buf[len(s)] = 0
	return len(s)
}

// setFlag stores a C logical.
func setFlag(p *C.int, b bool) {
	if b {
		*p = 1
	} else {
		*p = 0
	}
}

// cInt names C.int for the package's tests, which cannot use cgo themselves.
type cInt = C.int

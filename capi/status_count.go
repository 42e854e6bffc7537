package main

/*
#include "capi.h"
*/
import "C"

// The opaque part of MPI_Status in MPICH's layout: count_lo holds the low 32 bits of
// the received byte count; bit 0 of count_hi_and_cancelled is the cancelled flag and
// bits 1-31 hold bits 32-62 of the byte count. Point-to-point, RMA and I/O completions
// fill statuses through these helpers.

// setStatusCount stores a byte count (0 <= bytes < 2^63), keeping the cancelled flag.
func setStatusCount(st *C.MPI_Status, bytes int64) {
	st.count_lo = C.int(int32(uint32(bytes)))
	hi := uint32(bytes>>32)<<1 | uint32(st.count_hi_and_cancelled)&1
	st.count_hi_and_cancelled = C.int(int32(hi))
}

// statusCount returns the byte count stored by setStatusCount.
func statusCount(st *C.MPI_Status) int64 {
	return int64(uint32(st.count_hi_and_cancelled)>>1)<<32 | int64(uint32(st.count_lo))
}

// setStatusCancelled sets or clears the cancelled flag, keeping the count.
func setStatusCancelled(st *C.MPI_Status, cancelled bool) {
	v := uint32(st.count_hi_and_cancelled) &^ 1
	if cancelled {
		v |= 1
	}
	st.count_hi_and_cancelled = C.int(int32(v))
}

// statusCancelled reports the cancelled flag.
func statusCancelled(st *C.MPI_Status) bool { return st.count_hi_and_cancelled&1 != 0 }

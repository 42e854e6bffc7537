// Command capi is mpix's C boundary, built with -buildmode=c-shared into libmpix.so.
// The generated shim (zshim.c) defines every PMPI_X with a weak MPI_X alias and calls
// the generated Go export (zexports.go) once, passing the thread's context; the export
// checks generic arguments, resolves handles and calls the hand-written impl_X in this
// package, which converts C values and calls core or an extension package
// (threadcomm). MPI semantics live there, not here: capi's own C is the thread
// context (ctx.c), the calls into user code (callbacks.c) and
// dispatch.c, which sends a fast-path call to the data plane that owns it.
package main

//go:generate go run ./gen -root ..

/*
#cgo CFLAGS: -I${SRCDIR}/../include -I${SRCDIR}/../rma -I${SRCDIR}/../threadcomm -I${SRCDIR}/../shm -I${SRCDIR}/../vci -I${SRCDIR}/../core -O2 -Wall
#include "capi.h"
static void *mpix_in_place(void) { return MPI_IN_PLACE; }
*/
import "C"

import (
	"mpix/core"
	// The transports register their fabrics with mpix/transport from init; core opens
	// endpoints through that registry.
	_ "mpix/ofi"
	_ "mpix/shm"
	_ "mpix/verbs"
)

// funcID identifies a procedure (see zexports.go).
type funcID int

func main() {}

// MPI_IN_PLACE's address, for core (cgo cannot take the macro's value directly).
func init() { core.InPlace = C.mpix_in_place() }

// Package core holds mpix's MPI semantics independent of the C boundary: the runtime
// (initialization, finalization, thread levels, abort), handles and object tables,
// communicators, error classes and codes, error handlers, info objects and the
// process-management (PMI) client wiring. It never talks to a NIC or to shared memory
// directly and never uses cgo; capi converts C arguments and calls into it.
package core

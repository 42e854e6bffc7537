// Package core holds mpix's MPI semantics independent of the C boundary: the runtime
// (initialization, finalization, thread levels, abort), handles and object tables,
// communicators, error classes and codes, error handlers, info objects and the
// process-management (PMI) client wiring, the engine that matches messages and runs
// protocols on each VCI, and the Go side of thread communicators and endpoints. It
// reaches its transports only through package transport's registry and interfaces,
// imports no extension package, and never uses cgo; capi converts C arguments and
// calls into it.
package core

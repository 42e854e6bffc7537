// Package attr is MPI attribute caching (MPI-4.1 §7.7): keyvals, the callbacks that
// copy an attribute when its object is duplicated and delete it when the attribute
// goes, and the per-object store that communicators, datatypes and (later) windows
// carry.
//
// The package knows nothing of C. A keyval's callbacks are Go functions; capi makes
// them call the user's C functions through a trampoline. Attribute values are opaque
// words (the C void * the user stored), never Go pointers.
//
// Keyval handles use MPICH's encoding: object kind 9 in bits 26-29, and in bits 22-25
// the kind of object the keyval is for (1 communicator, 3 datatype, 8 window), so that
// MPI_TAG_UB is 0x64400001 and a user's communicator keyval 0xa44000nn. Predefined
// keyvals (MPI_TAG_UB..., MPI_WIN_BASE...) are known here by handle; their values are
// the caller's business, since they describe the runtime, not a store.
//
// Callbacks run with no lock of this package held, so they may call back into MPI,
// attribute functions on the same object included.
package attr

// Package datatype is mpix's MPI datatype engine (MPI-4.1 chapter 5): the predefined
// types with MPICH's handle values and layouts, the derived-type constructors with the
// arguments MPI_Type_get_contents reports, the handle table, and the pack engine that
// every transport, and later RMA and partitioned communication, moves data through.
//
// A derived type is stored as a layout: reps copies, stride bytes apart, of a list of
// blocks, each n copies of a child type laid out at the child's extent. Every
// constructor maps onto that shape (a vector is count copies of one block, an indexed
// type one copy of many blocks, subarrays and darrays nest such types). Bounds follow
// MPICH where MPICH follows the standard: struct extents are padded to the largest
// alignment of their basic types unless every entry has the same type, MPI_LB and
// MPI_UB in a struct set the bounds, and resized bounds act as the bounds of the data
// for the types built on them.
//
// Commit compiles one element into its contiguous byte runs in type-map order,
// merging runs that touch, and keeps the outermost repetition out of the list, so a
// vector of a million blocks compiles to one run and a count. Pack and Unpack stream
// any byte range of count elements: they find the starting run by binary search and
// never allocate; a type whose data tiles its extent is copied in one piece, and
// Contiguous tells transports when they may skip packing altogether.
//
// Handles are lock-free to resolve. A type lives while its user handles, the types
// made from it and pending operations (Ref/Release) hold it; MPI_Type_free drops a
// user handle.
package datatype

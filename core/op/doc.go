// Package op is mpix's reduction operations (MPI-4.1 §6.9): the fourteen predefined
// MPI_Op values with MPICH's handles, user operations made by MPI_Op_create, and Apply,
// which computes inout = in op inout element by element for reductions, scans,
// MPI_Reduce_local and RMA accumulates.
//
// Which predefined op applies to which type follows the standard's table of type
// groups (C integer, Fortran integer, floating point, logical, complex, byte,
// multi-language types, and the value-index pairs of MPI_MINLOC/MPI_MAXLOC), widened
// as MPICH widens it: MPI_CHAR (C char arithmetic) and MPI_CHARACTER take every
// arithmetic, logical and bitwise op, and the Fortran and multi-language integers the
// logical ops too (elem.go's opGroups). Any other combination is MPI_ERR_OP; MPI_WCHAR
// and MPI_PACKED belong to no group, so only MPI_REPLACE and MPI_NO_OP accept them. A derived type is
// accepted when every basic element of its type map is the same kind of element
// (MPI_INT throughout, or MPI_DOUBLE_INT throughout...) and the op applies to it.
//
// Kernels are generic functions over Go's numeric types, one instantiation per
// (op, element kind), chosen by table lookup once per call: a contiguous MPI_DOUBLE sum
// is one indirect call and a tight loop, with no allocation. Non-contiguous data goes
// through the datatype package's pack engine in fixed-size chunks from a pool. Go has
// no arithmetic for x87 long double, IEEE binary128 (MPI_REAL16) or binary16
// (MPIX_C_FLOAT16); those element kinds are computed by a kernel the C boundary
// registers with SetForeignKernel, so the hardware's own rounding applies.
//
// The package sits below core (core's collectives use it) and therefore cannot use
// core's handle table or error type. Its errors carry their MPI error class the way
// the datatype package's do, and user ops live in a small table of its own: ops are
// created rarely and looked up on every reduction, so the table is an immutable
// snapshot replaced on MPI_Op_create and MPI_Op_free, and a lookup is one atomic load.
package op

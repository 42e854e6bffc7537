/* The n-ary fold of the predefined operations over the element kinds C computes
 * (integers, floats, C bool, byte, the MINLOC/MAXLOC pairs), built for AVX2 too on
 * x86-64: the thread communicator's collectives fold every thread's buffer at once. */
#include <limits.h>
#include <string.h>
#include "kernels.h"

/* The predefined operations on the common element types: each thread folds a slice
 * of the elements over all threads' contributions, in rank order, a chunk at a time
 * into a local accumulator (vectorized; every input is read before any output is
 * written, so an in-place root's buffer may be both). */
#define FOLD_CHUNK 256
#define FOLD(T, EXPR)                                                                 \
    do {                                                                                 \
        if (n == 2 && nout <= 2) {                                                       \
            /* Two threads (the common team): one pass, element by element, with no    \
             * staging (each element's inputs are read before its outputs are written, \
             * so in place is safe). */                                                  \
            const T *x0 = (const T *)in[0], *x1 = (const T *)in[1];                     \
            T *o0 = (T *)out[0], *o1 = (T *)out[nout - 1];                               \
            if (nout == 1)                                                               \
                for (int64_t j = lo; j < hi; j++) {                                      \
                    T a = x0[j], b = x1[j];                                              \
                    o0[j] = (EXPR);                                                      \
                }                                                                        \
            else                                                                         \
                for (int64_t j = lo; j < hi; j++) {                                      \
                    T a = x0[j], b = x1[j];                                              \
                    o0[j] = o1[j] = (EXPR);                                              \
                }                                                                        \
            break;                                                                       \
        }                                                                                \
        T acc[FOLD_CHUNK];                                                                 \
        for (int64_t c0 = lo; c0 < hi; c0 += FOLD_CHUNK) {                                 \
            int64_t m = hi - c0 < FOLD_CHUNK ? hi - c0 : FOLD_CHUNK;                         \
            const T *x = (const T *)in[0] + c0;                                          \
            for (int64_t j = 0; j < m; j++)                                              \
                acc[j] = x[j];                                                           \
            for (int k = 1; k < n; k++) {                                                \
                x = (const T *)in[k] + c0;                                               \
                for (int64_t j = 0; j < m; j++) {                                        \
                    T a = acc[j], b = x[j];                                              \
                    acc[j] = (EXPR);                                                     \
                }                                                                        \
            }                                                                            \
            for (int k = 0; k < nout; k++)                                               \
                memcpy((T *)out[k] + c0, acc, (size_t)m * sizeof(T));                   \
        }                                                                                \
    } while (0)

/* What fold serves: the predefined operations MPI allows on each element kind
 * (arithmetic on integers and floats, logical on integers and C bools, bitwise on
 * integers and bytes, MINLOC and MAXLOC on the value-index pairs; MPI_CHAR as C's
 * char, which MPICH and core/op treat as an integer). Anything else (long double,
 * complex, Fortran types, user ops) goes to Go. */
enum {
    FOLD_I8, FOLD_U8, FOLD_I16, FOLD_U16, FOLD_I32, FOLD_U32, FOLD_I64, FOLD_U64, /* integers */
    FOLD_F32, FOLD_F64,                                               /* floats */
    FOLD_BOOL, FOLD_BYTE,
    FOLD_FLOAT_INT, FOLD_DOUBLE_INT, FOLD_LONG_INT, FOLD_2INT, FOLD_SHORT_INT, /* pairs */
};
#define FOLD_CLASS_ARITH (1u << 0)
#define FOLD_CLASS_LOGIC (1u << 1)
#define FOLD_CLASS_BITS (1u << 2)
#define FOLD_CLASS_LOC (1u << 3)

typedef struct { float v; int i; } fold_float_int;
typedef struct { double v; int i; } fold_double_int;
typedef struct { long v; int i; } fold_long_int;
typedef struct { int v; int i; } fold_2int;
typedef struct { short v; int i; } fold_short_int;

/* mpix_fold_kind is dt's element kind, or -1. */
int mpix_fold_kind(MPI_Datatype dt)
{
    switch ((uint32_t)dt) {
    case (uint32_t)MPI_CHAR: return CHAR_MIN < 0 ? FOLD_I8 : FOLD_U8;
    case (uint32_t)MPI_SIGNED_CHAR: case (uint32_t)MPI_INT8_T: return FOLD_I8;
    case (uint32_t)MPI_UNSIGNED_CHAR: case (uint32_t)MPI_UINT8_T: return FOLD_U8;
    case (uint32_t)MPI_SHORT: case (uint32_t)MPI_INT16_T: return FOLD_I16;
    case (uint32_t)MPI_UNSIGNED_SHORT: case (uint32_t)MPI_UINT16_T: return FOLD_U16;
    case (uint32_t)MPI_INT: case (uint32_t)MPI_INT32_T: return FOLD_I32;
    case (uint32_t)MPI_UNSIGNED: case (uint32_t)MPI_UINT32_T: return FOLD_U32;
    case (uint32_t)MPI_LONG: return sizeof(long) == 8 ? FOLD_I64 : FOLD_I32;
    case (uint32_t)MPI_UNSIGNED_LONG: return sizeof(long) == 8 ? FOLD_U64 : FOLD_U32;
    case (uint32_t)MPI_LONG_LONG: case (uint32_t)MPI_INT64_T: return FOLD_I64;
    case (uint32_t)MPI_UNSIGNED_LONG_LONG: case (uint32_t)MPI_UINT64_T: return FOLD_U64;
    case (uint32_t)MPI_FLOAT: return FOLD_F32;
    case (uint32_t)MPI_DOUBLE: return FOLD_F64;
    case (uint32_t)MPI_C_BOOL: return FOLD_BOOL;
    case (uint32_t)MPI_BYTE: return FOLD_BYTE;
    case (uint32_t)MPI_FLOAT_INT: return FOLD_FLOAT_INT;
    case (uint32_t)MPI_DOUBLE_INT: return FOLD_DOUBLE_INT;
    case (uint32_t)MPI_LONG_INT: return FOLD_LONG_INT;
    case (uint32_t)MPI_2INT: return FOLD_2INT;
    case (uint32_t)MPI_SHORT_INT: return FOLD_SHORT_INT;
    }
    return -1;
}

/* mpix_fold_esz is the bytes of one element of kind k (the pairs' C layouts are MPI's). */
int64_t mpix_fold_esz(int k)
{
    static const int64_t size[] = {
        [FOLD_I8] = 1, [FOLD_U8] = 1, [FOLD_I16] = 2, [FOLD_U16] = 2, [FOLD_I32] = 4, [FOLD_U32] = 4,
        [FOLD_I64] = 8, [FOLD_U64] = 8, [FOLD_F32] = 4, [FOLD_F64] = 8, [FOLD_BOOL] = sizeof(_Bool), [FOLD_BYTE] = 1,
        [FOLD_FLOAT_INT] = sizeof(fold_float_int), [FOLD_DOUBLE_INT] = sizeof(fold_double_int),
        [FOLD_LONG_INT] = sizeof(fold_long_int), [FOLD_2INT] = sizeof(fold_2int), [FOLD_SHORT_INT] = sizeof(fold_short_int),
    };
    return size[k];
}

static uint32_t op_class(MPI_Op op)
{
    if (op == MPI_SUM || op == MPI_PROD || op == MPI_MAX || op == MPI_MIN)
        return FOLD_CLASS_ARITH;
    if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
        return FOLD_CLASS_LOGIC;
    if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
        return FOLD_CLASS_BITS;
    if (op == MPI_MINLOC || op == MPI_MAXLOC)
        return FOLD_CLASS_LOC;
    return 0;
}

static uint32_t kind_ops(int k)
{
    if (k <= FOLD_U64)
        return FOLD_CLASS_ARITH | FOLD_CLASS_LOGIC | FOLD_CLASS_BITS;
    if (k <= FOLD_F64)
        return FOLD_CLASS_ARITH;
    if (k == FOLD_BOOL)
        return FOLD_CLASS_LOGIC;
    if (k == FOLD_BYTE)
        return FOLD_CLASS_BITS;
    return FOLD_CLASS_LOC;
}

/* mpix_fold_ok says whether mpix_fold serves dt and op. */
int mpix_fold_ok(MPI_Datatype dt, MPI_Op op)
{
    int k = mpix_fold_kind(dt);
    return k >= 0 && (kind_ops(k) & op_class(op)) != 0;
}


/* MINLOC and MAXLOC: the better value, and on a tie the lower index. */
#define FOLD_LOC_FNS(P)                                                                    \
    static inline P P##_min(P a, P b)                                                    \
    {                                                                                    \
        return a.v < b.v || (a.v == b.v && a.i < b.i) ? a : b;                           \
    }                                                                                    \
    static inline P P##_max(P a, P b)                                                    \
    {                                                                                    \
        return a.v > b.v || (a.v == b.v && a.i < b.i) ? a : b;                           \
    }
FOLD_LOC_FNS(fold_float_int)
FOLD_LOC_FNS(fold_double_int)
FOLD_LOC_FNS(fold_long_int)
FOLD_LOC_FNS(fold_2int)
FOLD_LOC_FNS(fold_short_int)

/* Sums and products of integers wrap, computed in U (unsigned, at least as wide as
 * int): a signed overflow would be undefined behaviour, and MPI leaves the value to
 * the implementation. */
#define FOLD_ARITH_OPS(T, U)                                                               \
    case (uint32_t)MPI_SUM: FOLD(T, (T)((U)a + (U)b)); return 1;                      \
    case (uint32_t)MPI_PROD: FOLD(T, (T)((U)a * (U)b)); return 1;                     \
    case (uint32_t)MPI_MAX: FOLD(T, a > b ? a : b); return 1;                         \
    case (uint32_t)MPI_MIN: FOLD(T, a < b ? a : b); return 1;
#define FOLD_LOGIC_OPS(T)                                                                  \
    case (uint32_t)MPI_LAND: FOLD(T, (T)(a && b)); return 1;                          \
    case (uint32_t)MPI_LOR: FOLD(T, (T)(a || b)); return 1;                           \
    case (uint32_t)MPI_LXOR: FOLD(T, (T)(!a != !b)); return 1;
#define FOLD_BITS_OPS(T)                                                                   \
    case (uint32_t)MPI_BAND: FOLD(T, (T)(a & b)); return 1;                           \
    case (uint32_t)MPI_BOR: FOLD(T, (T)(a | b)); return 1;                            \
    case (uint32_t)MPI_BXOR: FOLD(T, (T)(a ^ b)); return 1;
#define FOLD_INT(T, U)                                                                     \
    switch ((uint32_t)op) { FOLD_ARITH_OPS(T, U) FOLD_LOGIC_OPS(T) FOLD_BITS_OPS(T) }          \
    return 0
#define FOLD_LOC(P)                                                                        \
    switch ((uint32_t)op) {                                                              \
    case (uint32_t)MPI_MINLOC: FOLD(P, P##_min(a, b)); return 1;                      \
    case (uint32_t)MPI_MAXLOC: FOLD(P, P##_max(a, b)); return 1;                      \
    }                                                                                    \
    return 0

/* On x86-64, built for AVX2 too and picked at load time where the CPU has it: twice
 * the SSE2 rate. (Clones need the compiler's attribute and the loader's ifuncs.) Not
 * under ThreadSanitizer: gcc instruments the ifunc resolver, which the loader runs
 * before libtsan is initialised, and the program dies in relocation (make sanitize). */
#if defined(__x86_64__) && defined(__GNUC__) && defined(__has_attribute) && !defined(__SANITIZE_THREAD__)
#if __has_attribute(target_clones) && defined(__GLIBC__)
#define FOLD_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#endif
#ifndef FOLD_CLONES
#define FOLD_CLONES
#endif
/* fold folds elements lo..hi of the n inputs in (rank order) into the nout outputs;
 * kind k and op passed fold_ok. */
__attribute__((optimize("O3"))) FOLD_CLONES int mpix_fold(int k, MPI_Op op, const void *const *in, int n,
                                                 void *const *out, int nout, int64_t lo, int64_t hi)
{
    switch (k) {
    case FOLD_I8: FOLD_INT(int8_t, uint32_t);
    case FOLD_U8: FOLD_INT(uint8_t, uint32_t);
    case FOLD_I16: FOLD_INT(int16_t, uint32_t);
    case FOLD_U16: FOLD_INT(uint16_t, uint32_t);
    case FOLD_I32: FOLD_INT(int32_t, uint32_t);
    case FOLD_U32: FOLD_INT(uint32_t, uint32_t);
    case FOLD_I64: FOLD_INT(int64_t, uint64_t);
    case FOLD_U64: FOLD_INT(uint64_t, uint64_t);
    case FOLD_F32: switch ((uint32_t)op) { FOLD_ARITH_OPS(float, float) } return 0;
    case FOLD_F64: switch ((uint32_t)op) { FOLD_ARITH_OPS(double, double) } return 0;
    case FOLD_BOOL: switch ((uint32_t)op) { FOLD_LOGIC_OPS(_Bool) } return 0;
    case FOLD_BYTE: switch ((uint32_t)op) { FOLD_BITS_OPS(uint8_t) } return 0;
    case FOLD_FLOAT_INT: FOLD_LOC(fold_float_int);
    case FOLD_DOUBLE_INT: FOLD_LOC(fold_double_int);
    case FOLD_LONG_INT: FOLD_LOC(fold_long_int);
    case FOLD_2INT: FOLD_LOC(fold_2int);
    case FOLD_SHORT_INT: FOLD_LOC(fold_short_int);
    }
    return 0;
}


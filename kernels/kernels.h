/* Reduction kernels in C, one copy for every C path of the library (the Go kernels are
 * core/op's). */
#ifndef MPIX_KERNELS_H
#define MPIX_KERNELS_H

#include <stdint.h>
#include "mpi.h"

#pragma GCC visibility push(hidden)

/* The n-ary fold (fold.c): an element kind for each predefined type it serves. */

/* mpix_fold_kind is dt's element kind, or -1 when the fold does not serve dt. */
int mpix_fold_kind(MPI_Datatype dt);
/* mpix_fold_esz is the bytes of one element of kind k. */
int64_t mpix_fold_esz(int k);
/* mpix_fold_ok says whether mpix_fold serves dt and op. */
int mpix_fold_ok(MPI_Datatype dt, MPI_Op op);
/* mpix_fold folds elements lo..hi of the n inputs in (rank order) into the nout
 * outputs; kind k and op passed mpix_fold_ok. It returns 0 for a pair it does not
 * serve. */
int mpix_fold(int k, MPI_Op op, const void *const *in, int n, void *const *out, int nout, int64_t lo,
              int64_t hi);

/* The types Go cannot compute (foreign.c). */
enum mpix_foreign {
    MPIX_FOREIGN_FLOAT16 = 1,      /* _Float16 (MPIX_C_FLOAT16) */
    MPIX_FOREIGN_LONG_DOUBLE,      /* long double, x87 80-bit in 16 bytes */
    MPIX_FOREIGN_LONG_DOUBLE_COMPLEX,
    MPIX_FOREIGN_FLOAT128,         /* _Float128 (MPI_REAL16) */
    MPIX_FOREIGN_FLOAT128_COMPLEX, /* MPI_COMPLEX32 */
    MPIX_FOREIGN_LONG_DOUBLE_INT,  /* MPI_LONG_DOUBLE_INT: value, then int at idx */
};

/* mpix_op_foreign computes inout = in op inout over n elements stride bytes apart; it
 * returns -1 for a combination core/op never asks for. */
int mpix_op_foreign(MPI_Op op, int kind, void *in, void *inout, int64_t n, int64_t stride, int64_t idx);

#pragma GCC visibility pop

#endif

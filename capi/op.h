/* Reduction operations on the C side: calls into user MPI_User_function(s), and the
 * kernels for the element types Go has no arithmetic for. */
#ifndef MPIX_CAPI_OP_H
#define MPIX_CAPI_OP_H

#include <stdint.h>
#include "mpi.h"

/* Element kinds of mpix_op_foreign (core/op's Foreign values are mapped onto these
 * by name in capi/op.go). */
enum mpix_foreign {
    MPIX_FOREIGN_FLOAT16 = 1,      /* _Float16 (MPIX_C_FLOAT16) */
    MPIX_FOREIGN_LONG_DOUBLE,      /* long double, x87 80-bit in 16 bytes */
    MPIX_FOREIGN_LONG_DOUBLE_COMPLEX,
    MPIX_FOREIGN_FLOAT128,         /* _Float128 (MPI_REAL16) */
    MPIX_FOREIGN_FLOAT128_COMPLEX, /* MPI_COMPLEX32 */
    MPIX_FOREIGN_LONG_DOUBLE_INT,  /* MPI_LONG_DOUBLE_INT: value, then int at idx */
};

void mpix_call_user_op(void *fn, void *in, void *inout, int len, MPI_Datatype dt);
void mpix_call_user_op_c(void *fn, void *in, void *inout, MPI_Count len, MPI_Datatype dt);
int mpix_op_foreign(MPI_Op op, int kind, void *in, void *inout, int64_t n, int64_t stride,
                    int64_t idx);

#endif

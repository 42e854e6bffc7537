/* Kernels for the element types Go has no arithmetic for: long double, _Float128 and
 * _Float16, and their complex and MINLOC/MAXLOC forms, so that the compiler's own
 * arithmetic and rounding apply (core/op applies them through kernels.go). */
#include <string.h>
#include "kernels.h"

/* EACH runs `y = EXPR` over n elements of type T, stride bytes apart, loading x from
 * in and y from inout. Operands may be unaligned (packed streams), hence memcpy; only
 * the SZ bytes of data are stored, so a long double's padding is left alone. */
#define EACH(T, SZ, EXPR)                                                       \
    do {                                                                        \
        for (int64_t i_ = 0; i_ < n; i_++) {                                    \
            char *a_ = (char *)in + i_ * stride, *b_ = (char *)inout + i_ * stride; \
            T x, y;                                                             \
            memcpy(&x, a_, sizeof x);                                           \
            memcpy(&y, b_, sizeof y);                                           \
            y = (EXPR);                                                         \
            memcpy(b_, &y, (SZ));                                               \
        }                                                                       \
    } while (0)

#define REAL_OPS(T, SZ)                                                         \
    switch (op) {                                                               \
    case MPI_MAX: EACH(T, SZ, x > y ? x : y); return 0;                         \
    case MPI_MIN: EACH(T, SZ, x < y ? x : y); return 0;                         \
    case MPI_SUM: EACH(T, SZ, x + y); return 0;                                 \
    case MPI_PROD: EACH(T, SZ, x * y); return 0;                                \
    }                                                                           \
    return -1

#define COMPLEX_OPS(T)                                                          \
    switch (op) {                                                               \
    case MPI_SUM: EACH(T, sizeof(T), x + y); return 0;                          \
    case MPI_PROD: EACH(T, sizeof(T), x * y); return 0;                         \
    }                                                                           \
    return -1

/* The data bytes of an x87 long double (the rest of its 16 bytes is padding). */
#define LD_BYTES 10

static void ld_store_complex(char *p, long double _Complex v)
{
    long double re = __real__ v, im = __imag__ v;
    memcpy(p, &re, LD_BYTES);
    memcpy(p + sizeof(long double), &im, LD_BYTES);
}

/* MPI_MINLOC/MPI_MAXLOC on MPI_LONG_DOUBLE_INT: the better value wins, a tie keeps
 * the lower index. */
static int ld_int_loc(MPI_Op op, void *in, void *inout, int64_t n, int64_t stride, int64_t idx)
{
    if (op != MPI_MINLOC && op != MPI_MAXLOC)
        return -1;
    for (int64_t i = 0; i < n; i++) {
        char *a = (char *)in + i * stride, *b = (char *)inout + i * stride;
        long double x, y;
        int xi, yi;
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        memcpy(&xi, a + idx, sizeof xi);
        memcpy(&yi, b + idx, sizeof yi);
        if (op == MPI_MINLOC ? x < y : x > y) {
            memcpy(b, &x, LD_BYTES);
            memcpy(b + idx, &xi, sizeof xi);
        } else if (x == y && xi < yi) {
            memcpy(b + idx, &xi, sizeof xi);
        }
    }
    return 0;
}

/* mpix_op_foreign computes inout = in op inout; it returns -1 for a combination core/op
 * never asks for. */
int mpix_op_foreign(MPI_Op op, int kind, void *in, void *inout, int64_t n, int64_t stride,
                    int64_t idx)
{
    switch (kind) {
    case MPIX_FOREIGN_FLOAT16:
        REAL_OPS(_Float16, sizeof(_Float16));
    case MPIX_FOREIGN_LONG_DOUBLE:
        REAL_OPS(long double, LD_BYTES);
    case MPIX_FOREIGN_FLOAT128:
        REAL_OPS(_Float128, sizeof(_Float128));
    case MPIX_FOREIGN_FLOAT128_COMPLEX:
        COMPLEX_OPS(_Complex _Float128);
    case MPIX_FOREIGN_LONG_DOUBLE_COMPLEX:
        if (op != MPI_SUM && op != MPI_PROD)
            return -1;
        for (int64_t i = 0; i < n; i++) {
            char *a = (char *)in + i * stride, *b = (char *)inout + i * stride;
            long double _Complex x, y;
            memcpy(&x, a, sizeof x);
            memcpy(&y, b, sizeof y);
            ld_store_complex(b, op == MPI_SUM ? x + y : x * y);
        }
        return 0;
    case MPIX_FOREIGN_LONG_DOUBLE_INT:
        return ld_int_loc(op, in, inout, n, stride, idx);
    }
    return -1;
}

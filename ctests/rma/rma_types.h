/* Element types for the RMA tests: deterministic values of each predefined type the
 * accumulates use, and a serial reference of every predefined reduction on them, so
 * that a test computes what a target must hold after an accumulate. Values stay
 * small (no overflow) and floating-point ones are dyadic, so every result is exact. */
#ifndef RMA_TYPES_H
#define RMA_TYPES_H
#include "rma_util.h"

enum { T_INT, T_DOUBLE, T_SCHAR, T_UCHAR, T_LL, T_2INT, T_DCPLX, T_NTYPES };

typedef struct {
    int v, i;
} rma_int2;
typedef struct {
    double re, im;
} rma_dcplx;

static const char *const rma_tname[T_NTYPES] = {
    "int", "double", "signed char", "unsigned char", "long long", "2int", "double complex",
};

static inline MPI_Datatype rma_tdt(int k)
{
    switch (k) {
    case T_INT:
        return MPI_INT;
    case T_DOUBLE:
        return MPI_DOUBLE;
    case T_SCHAR:
        return MPI_SIGNED_CHAR;
    case T_UCHAR:
        return MPI_UNSIGNED_CHAR;
    case T_LL:
        return MPI_LONG_LONG;
    case T_2INT:
        return MPI_2INT;
    default:
        return MPI_C_DOUBLE_COMPLEX;
    }
}

static inline size_t rma_tsz(int k)
{
    static const size_t sz[T_NTYPES] = {sizeof(int),       sizeof(double),   1, 1,
                                        sizeof(long long), sizeof(rma_int2), sizeof(rma_dcplx)};
    return sz[k];
}

static inline const char *rma_opname(MPI_Op op)
{
    return op == MPI_SUM       ? "SUM"
           : op == MPI_PROD    ? "PROD"
           : op == MPI_MAX     ? "MAX"
           : op == MPI_MIN     ? "MIN"
           : op == MPI_BAND    ? "BAND"
           : op == MPI_BOR     ? "BOR"
           : op == MPI_BXOR    ? "BXOR"
           : op == MPI_LAND    ? "LAND"
           : op == MPI_LOR     ? "LOR"
           : op == MPI_LXOR    ? "LXOR"
           : op == MPI_MINLOC  ? "MINLOC"
           : op == MPI_MAXLOC  ? "MAXLOC"
           : op == MPI_REPLACE ? "REPLACE"
           : op == MPI_NO_OP   ? "NO_OP"
                               : "?";
}

/* MPICH 4.0.2 compares MPI_UNSIGNED_CHAR as signed in MPI_MAX and MPI_MIN (in
 * accumulates and in MPI_Reduce alike: max(0x70, 0xd9) gives 0x70), so unsigned char
 * values stay below 0x80 unless MPIX_RMA_STRICT=1 (rma_types_init). */
static int rma_uchar_mask = 0x7f;
static inline void rma_types_init(void) { rma_uchar_mask = rma_strict() ? 0xff : 0x7f; }

/* rma_tfill writes n values of type k that depend on who and salt. */
static inline void rma_tfill(int k, void *buf, int n, int who, int salt)
{
    static const int iv[16] = {0, 3, -5, 12, 7, 0, -1, 100, 6, -9, 1, 42, 0x5a5a, -77, 2, 8};
    static const int lv[6] = {3, -1, 3, 8, -1, 0};
    for (int i = 0; i < n; i++) {
        unsigned s = (unsigned)(who * 5 + salt * 3 + i * 7);
        switch (k) {
        case T_INT:
            ((int *)buf)[i] = iv[s & 15];
            break;
        case T_DOUBLE:
            ((double *)buf)[i] = ((int)(s % 17) - 8) * 0.25 + 0.5;
            break;
        case T_SCHAR:
            ((signed char *)buf)[i] = (signed char)((int)(s % 41) - 20);
            break;
        case T_UCHAR:
            ((unsigned char *)buf)[i] = (unsigned char)((s * 37 + 11) & rma_uchar_mask);
            break;
        case T_LL:
            ((long long *)buf)[i] = ((long long)(s % 13) - 6) * 0x123456789LL + (s & 3);
            break;
        case T_2INT:
            ((rma_int2 *)buf)[i].v = lv[s % 6];
            ((rma_int2 *)buf)[i].i = who * 100 + i;
            break;
        default:
            ((rma_dcplx *)buf)[i].re = ((int)(s % 9) - 4) * 0.5;
            ((rma_dcplx *)buf)[i].im = ((int)(s % 5) - 2) * 0.25;
        }
    }
}

#define RMA_INT_OP(T)                                                                                 \
    do {                                                                                              \
        T *a = acc;                                                                                   \
        const T *b = org;                                                                             \
        for (int i = 0; i < n; i++) {                                                                 \
            T x = a[i], y = b[i], r;                                                                  \
            if (op == MPI_SUM)                                                                        \
                r = (T)(x + y);                                                                       \
            else if (op == MPI_PROD)                                                                  \
                r = (T)(x * y);                                                                       \
            else if (op == MPI_MAX)                                                                   \
                r = x > y ? x : y;                                                                    \
            else if (op == MPI_MIN)                                                                   \
                r = x < y ? x : y;                                                                    \
            else if (op == MPI_BAND)                                                                  \
                r = x & y;                                                                            \
            else if (op == MPI_BOR)                                                                   \
                r = x | y;                                                                            \
            else if (op == MPI_BXOR)                                                                  \
                r = x ^ y;                                                                            \
            else if (op == MPI_LAND)                                                                  \
                r = x && y;                                                                           \
            else if (op == MPI_LOR)                                                                   \
                r = x || y;                                                                           \
            else if (op == MPI_LXOR)                                                                  \
                r = !x != !y;                                                                         \
            else if (op == MPI_REPLACE)                                                               \
                r = y;                                                                                \
            else if (op == MPI_NO_OP)                                                                 \
                r = x;                                                                                \
            else                                                                                      \
                CHECK(0, "no reference for %s on %s", rma_opname(op), rma_tname[k]);                  \
            a[i] = r;                                                                                 \
        }                                                                                             \
    } while (0)

/* rma_tcombine replaces acc (the target's values) with acc op org, element-wise. */
static inline void rma_tcombine(int k, MPI_Op op, void *acc, const void *org, int n)
{
    switch (k) {
    case T_INT:
        RMA_INT_OP(int);
        break;
    case T_SCHAR:
        RMA_INT_OP(signed char);
        break;
    case T_UCHAR:
        RMA_INT_OP(unsigned char);
        break;
    case T_LL:
        RMA_INT_OP(long long);
        break;
    case T_DOUBLE: {
        double *a = acc;
        const double *b = org;
        for (int i = 0; i < n; i++) {
            if (op == MPI_SUM)
                a[i] += b[i];
            else if (op == MPI_PROD)
                a[i] *= b[i];
            else if (op == MPI_MAX)
                a[i] = a[i] > b[i] ? a[i] : b[i];
            else if (op == MPI_MIN)
                a[i] = a[i] < b[i] ? a[i] : b[i];
            else if (op == MPI_REPLACE)
                a[i] = b[i];
            else
                CHECK(op == MPI_NO_OP, "no reference for %s on double", rma_opname(op));
        }
        break;
    }
    case T_2INT: {
        rma_int2 *a = acc;
        const rma_int2 *b = org;
        for (int i = 0; i < n; i++) {
            if (op == MPI_MINLOC || op == MPI_MAXLOC) {
                int better = op == MPI_MINLOC ? b[i].v < a[i].v : b[i].v > a[i].v;
                if (better)
                    a[i] = b[i];
                else if (b[i].v == a[i].v && b[i].i < a[i].i)
                    a[i].i = b[i].i;
            } else if (op == MPI_REPLACE)
                a[i] = b[i];
            else
                CHECK(op == MPI_NO_OP, "no reference for %s on 2int", rma_opname(op));
        }
        break;
    }
    default: {
        rma_dcplx *a = acc;
        const rma_dcplx *b = org;
        for (int i = 0; i < n; i++) {
            if (op == MPI_SUM) {
                a[i].re += b[i].re;
                a[i].im += b[i].im;
            } else if (op == MPI_PROD) {
                rma_dcplx r = {a[i].re * b[i].re - a[i].im * b[i].im, a[i].re * b[i].im + a[i].im * b[i].re};
                a[i] = r;
            } else if (op == MPI_REPLACE)
                a[i] = b[i];
            else
                CHECK(op == MPI_NO_OP, "no reference for %s on double complex", rma_opname(op));
        }
    }
    }
}
#endif

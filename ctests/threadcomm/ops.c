/* Reductions on a threadcomm over every predefined operation and the element kinds it
 * applies to: arithmetic (SUM, PROD, MAX, MIN) on integers of every width and
 * signedness and on floats, logical (LAND, LOR, LXOR) on integers and C bools, bitwise
 * (BAND, BOR, BXOR) on integers and bytes, MINLOC and MAXLOC on the value-index pairs
 * (values that tie across ranks: the lower index wins). Each is MPI_Allreduce and MPI_Reduce to a moving root,
 * of one element (single-process: on the seats) and of 300 (sliced or one-barrier
 * folds), checked element by element against a serial fold of the ranks' inputs.
 * Single-process these run in C (kernels/fold.c), across processes in Go: the
 * same answers either way.
 * Argument: threads per process (default 4). */
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include "mpix_test.h"
#include <mpix.h>

#define N 300
#define ROUNDS 20

static MPI_Comm tc;

/* Every kind's buffers, per thread: room for N of the widest element. */
typedef struct { double v; int i; } double_int;
static __thread double_int tls_in[N], tls_out[N];

/* The input of rank r at element i: small, so that products of a few ranks fit. */
static int val(int r, int i) { return (r * 5 + i * 3 + 1) % 7; }

/* check_op reduces T values under op with both calls and compares with the serial
 * fold of EXPR over the ranks in order. */
#define CHECK_OP(T, MPIT, OP, EXPR, MAKE)                                                 \
    do {                                                                                 \
        T *in = (T *)tls_in, *out = (T *)tls_out;                                        \
        for (int count = 1; count <= N; count += N - 1) {                                \
            for (int i = 0; i < count; i++) {                                            \
                int r_ = rank;                                                           \
                in[i] = (T)(MAKE(r_, i));                                                \
            }                                                                            \
            for (int call = 0; call < 2; call++) {                                       \
                memset(out, 0x5a, N * sizeof(T));                                        \
                int root = call == 0 ? -1 : round % size;                                \
                if (root < 0)                                                            \
                    CHECK_OK(MPI_Allreduce(in, out, count, MPIT, OP, tc));               \
                else                                                                     \
                    CHECK_OK(MPI_Reduce(in, out, count, MPIT, OP, root, tc));            \
                if (root >= 0 && root != rank)                                           \
                    continue;                                                            \
                for (int i = 0; i < count; i++) {                                        \
                    T a = (T)(MAKE(0, i));                                               \
                    for (int r_ = 1; r_ < size; r_++) {                                  \
                        T b = (T)(MAKE(r_, i));                                          \
                        a = (T)(EXPR);                                                   \
                    }                                                                    \
                    CHECK(memcmp(&a, &out[i], sizeof a) == 0, "round %d: %s %s count %d [%d]", \
                          round, #MPIT, #OP, count, i);                                  \
                }                                                                        \
            }                                                                            \
        }                                                                                \
    } while (0)

#define VAL(r, i) val(r, i)
#define BIT(r, i) (1u << ((r + i) % 8))
#define ODD(r, i) ((r + i) % 2)

#define ALL_INT_OPS(T, MPIT)                                                             \
    do {                                                                                 \
        CHECK_OP(T, MPIT, MPI_SUM, a + b, VAL);                                          \
        CHECK_OP(T, MPIT, MPI_PROD, a * b, VAL);                                         \
        CHECK_OP(T, MPIT, MPI_MAX, a > b ? a : b, VAL);                                  \
        CHECK_OP(T, MPIT, MPI_MIN, a < b ? a : b, VAL);                                  \
        CHECK_OP(T, MPIT, MPI_LAND, a && b, VAL);                                        \
        CHECK_OP(T, MPIT, MPI_LOR, a || b, ODD);                                         \
        CHECK_OP(T, MPIT, MPI_LXOR, !a != !b, VAL);                                      \
        CHECK_OP(T, MPIT, MPI_BAND, a & b, VAL);                                         \
        CHECK_OP(T, MPIT, MPI_BOR, a | b, BIT);                                          \
        CHECK_OP(T, MPIT, MPI_BXOR, a ^ b, BIT);                                         \
    } while (0)

#define LOC_OPS(P, MPIT)                                                                 \
    do {                                                                                 \
        P *in = (P *)tls_in, *out = (P *)tls_out;                                        \
        for (int i = 0; i < N; i++)                                                      \
            in[i].v = (rank + i) % 2, in[i].i = rank;                                    \
        for (int op = 0; op < 2; op++) {                                                 \
            memset(out, 0x5a, N * sizeof(P));                                            \
            CHECK_OK(MPI_Allreduce(in, out, N, MPIT, op ? MPI_MAXLOC : MPI_MINLOC, tc)); \
            for (int i = 0; i < N; i++) {                                                \
                int best = 0;                                                            \
                for (int r = 1; r < size; r++)                                           \
                    if (op ? (r + i) % 2 > (best + i) % 2 : (r + i) % 2 < (best + i) % 2) \
                        best = r;                                                        \
                CHECK(out[i].v == (best + i) % 2 && out[i].i == best,                    \
                      "round %d: %s %s [%d] = (%g, %d), want (%d, %d)", round, #MPIT,    \
                      op ? "MAXLOC" : "MINLOC", i, (double)out[i].v, out[i].i, (best + i) % 2, best); \
            }                                                                            \
            P one = in[0], got;                                                          \
            CHECK_OK(MPI_Reduce(&one, &got, 1, MPIT, op ? MPI_MAXLOC : MPI_MINLOC, round % size, tc)); \
            if (rank == round % size) {                                                  \
                int best = 0;                                                            \
                for (int r = 1; r < size; r++)                                           \
                    if (op ? r % 2 > best % 2 : r % 2 < best % 2)                        \
                        best = r;                                                        \
                CHECK(got.v == best % 2 && got.i == best, "round %d: %s scalar loc", round, #MPIT); \
            }                                                                            \
        }                                                                                \
    } while (0)

typedef struct { float v; int i; } float_int;
typedef struct { long v; int i; } long_int;
typedef struct { int v; int i; } int_int;
typedef struct { short v; int i; } short_int;

static void round_body(int round)
{
    int rank, size;
    CHECK_OK(MPI_Comm_rank(tc, &rank));
    CHECK_OK(MPI_Comm_size(tc, &size));
    ALL_INT_OPS(signed char, MPI_SIGNED_CHAR);
    ALL_INT_OPS(unsigned char, MPI_UNSIGNED_CHAR);
    ALL_INT_OPS(int8_t, MPI_INT8_T);
    ALL_INT_OPS(uint8_t, MPI_UINT8_T);
    ALL_INT_OPS(short, MPI_SHORT);
    ALL_INT_OPS(unsigned short, MPI_UNSIGNED_SHORT);
    ALL_INT_OPS(int16_t, MPI_INT16_T);
    ALL_INT_OPS(uint16_t, MPI_UINT16_T);
    ALL_INT_OPS(int, MPI_INT);
    ALL_INT_OPS(unsigned, MPI_UNSIGNED);
    ALL_INT_OPS(int32_t, MPI_INT32_T);
    ALL_INT_OPS(uint32_t, MPI_UINT32_T);
    ALL_INT_OPS(long, MPI_LONG);
    ALL_INT_OPS(unsigned long, MPI_UNSIGNED_LONG);
    ALL_INT_OPS(long long, MPI_LONG_LONG);
    ALL_INT_OPS(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    ALL_INT_OPS(int64_t, MPI_INT64_T);
    ALL_INT_OPS(uint64_t, MPI_UINT64_T);
    CHECK_OP(float, MPI_FLOAT, MPI_SUM, a + b, VAL);
    CHECK_OP(float, MPI_FLOAT, MPI_PROD, a * b, VAL);
    CHECK_OP(float, MPI_FLOAT, MPI_MAX, a > b ? a : b, VAL);
    CHECK_OP(double, MPI_DOUBLE, MPI_MIN, a < b ? a : b, VAL);
    CHECK_OP(double, MPI_DOUBLE, MPI_SUM, a + b, VAL);
    CHECK_OP(double, MPI_DOUBLE, MPI_PROD, a * b, VAL);
    CHECK_OP(bool, MPI_C_BOOL, MPI_LAND, a && b, ODD);
    CHECK_OP(bool, MPI_C_BOOL, MPI_LOR, a || b, ODD);
    CHECK_OP(bool, MPI_C_BOOL, MPI_LXOR, a != b, ODD);
    CHECK_OP(unsigned char, MPI_BYTE, MPI_BAND, a & b, BIT);
    CHECK_OP(unsigned char, MPI_BYTE, MPI_BOR, a | b, BIT);
    CHECK_OP(unsigned char, MPI_BYTE, MPI_BXOR, a ^ b, BIT);
    LOC_OPS(float_int, MPI_FLOAT_INT);
    LOC_OPS(double_int, MPI_DOUBLE_INT);
    LOC_OPS(long_int, MPI_LONG_INT);
    LOC_OPS(int_int, MPI_2INT);
    LOC_OPS(short_int, MPI_SHORT_INT);
}

int main(int argc, char **argv)
{
    int nt = argc > 1 ? atoi(argv[1]) : 4, provided;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    mpix_test_path_begin();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, nt, &tc));
    for (int round = 0; round < ROUNDS; round++) {
#pragma omp parallel num_threads(nt)
        {
            CHECK_OK(MPIX_Threadcomm_start(tc));
            round_body(round);
            CHECK_OK(MPIX_Threadcomm_finish(tc));
        }
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    if (wrank == 0)
        printf("tc_ops ok\n");
    mpix_test_path_end();
    CHECK_OK(MPI_Finalize());
    return 0;
}

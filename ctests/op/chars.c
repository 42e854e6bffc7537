/* Reductions on the character types across processes (issue 29 items 6 and 9):
 * MPI_Allreduce, MPI_Reduce, MPI_Iallreduce, MPI_Scan and MPI_Reduce_scatter_block with
 * every arithmetic, logical and bitwise op on MPI_CHAR, MPI_SIGNED_CHAR,
 * MPI_UNSIGNED_CHAR and MPI_CHARACTER, as MPICH accepts them; results are C char
 * arithmetic, wrapping as the element type does, computed here serially. */
#include "mpix_test.h"

#define N 40

enum { T_CHAR, T_SCHAR, T_UCHAR, T_CHARACTER, NTYPES };
static const struct {
    MPI_Datatype t;
    const char *name;
} types[NTYPES] = {{MPI_CHAR, "MPI_CHAR"}, {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"},
                   {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"}, {MPI_CHARACTER, "MPI_CHARACTER"}};

static const struct {
    MPI_Op op;
    const char *name;
} ops[] = {{MPI_SUM, "MPI_SUM"}, {MPI_PROD, "MPI_PROD"}, {MPI_MAX, "MPI_MAX"}, {MPI_MIN, "MPI_MIN"},
           {MPI_LAND, "MPI_LAND"}, {MPI_LOR, "MPI_LOR"}, {MPI_LXOR, "MPI_LXOR"},
           {MPI_BAND, "MPI_BAND"}, {MPI_BOR, "MPI_BOR"}, {MPI_BXOR, "MPI_BXOR"}};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

/* value is rank r's element i: spread over the whole byte so that sums wrap and
 * signedness matters for MAX and MIN; some zeros for the logical ops. */
static unsigned char value(int r, int i)
{
    if ((i + r) % 7 == 0)
        return 0;
    return (unsigned char)(37 * r + 91 * i + 60);
}

/* combine computes a op b in the element type's own arithmetic. */
#define COMBINE(T)                                                              \
    static T combine_##T(int o, T a, T b)                                       \
    {                                                                           \
        switch (o) {                                                            \
        case 0: return (T)(a + b);                                              \
        case 1: return (T)(a * b);                                              \
        case 2: return a > b ? a : b;                                           \
        case 3: return a < b ? a : b;                                           \
        case 4: return (T)(a && b);                                             \
        case 5: return (T)(a || b);                                             \
        case 6: return (T)(!a != !b);                                           \
        case 7: return (T)(a & b);                                              \
        case 8: return (T)(a | b);                                              \
        default: return (T)(a ^ b);                                             \
        }                                                                       \
    }
typedef signed char schar;
typedef unsigned char uchar;
COMBINE(char)
COMBINE(schar)
COMBINE(uchar)

static unsigned char combine(int t, int o, unsigned char a, unsigned char b)
{
    switch (t) {
    case T_CHAR: return (unsigned char)combine_char(o, (char)a, (char)b);
    case T_UCHAR: return combine_uchar(o, a, b);
    default: return (unsigned char)combine_schar(o, (schar)a, (schar)b); /* MPI_CHARACTER: signed, as MPICH */
    }
}

/* expect fills want with the reduction over ranks 0..upto of element i. */
static void expect(int t, int o, int upto, unsigned char *want, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned char acc = value(0, i);
        for (int r = 1; r <= upto; r++)
            acc = combine(t, o, acc, value(r, i));
        want[i] = acc;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank, size, checked = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    unsigned char in[N * 4], out[N * 4], want[N * 4];
    for (int t = 0; t < NTYPES; t++) {
        for (int o = 0; o < NOPS; o++) {
            const char *tn = types[t].name, *on = ops[o].name;
            for (int i = 0; i < N; i++)
                in[i] = value(rank, i);
            expect(t, o, size - 1, want, N);

            memset(out, 0xee, sizeof out);
            CHECK_OK(MPI_Allreduce(in, out, N, types[t].t, ops[o].op, MPI_COMM_WORLD));
            CHECK(memcmp(out, want, N) == 0, "MPI_Allreduce %s %s: [0]=%d want %d", on, tn, out[0], want[0]);

            memset(out, 0xee, sizeof out);
            CHECK_OK(MPI_Reduce(in, out, N, types[t].t, ops[o].op, size - 1, MPI_COMM_WORLD));
            if (rank == size - 1)
                CHECK(memcmp(out, want, N) == 0, "MPI_Reduce %s %s", on, tn);

            MPI_Request req;
            memset(out, 0xee, sizeof out);
            CHECK_OK(MPI_Iallreduce(in, out, N, types[t].t, ops[o].op, MPI_COMM_WORLD, &req));
            CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
            CHECK(memcmp(out, want, N) == 0, "MPI_Iallreduce %s %s", on, tn);

            /* In place. */
            memcpy(out, in, N);
            CHECK_OK(MPI_Allreduce(MPI_IN_PLACE, out, N, types[t].t, ops[o].op, MPI_COMM_WORLD));
            CHECK(memcmp(out, want, N) == 0, "MPI_Allreduce in place %s %s", on, tn);

            memset(out, 0xee, sizeof out);
            CHECK_OK(MPI_Scan(in, out, N, types[t].t, ops[o].op, MPI_COMM_WORLD));
            expect(t, o, rank, want, N);
            CHECK(memcmp(out, want, N) == 0, "MPI_Scan %s %s", on, tn);

            /* Reduce_scatter_block: N/size... use 3 elements per rank. */
            unsigned char rin[3 * 64], rout[3];
            for (int i = 0; i < 3 * size; i++)
                rin[i] = value(rank, i);
            CHECK_OK(MPI_Reduce_scatter_block(rin, rout, 3, types[t].t, ops[o].op, MPI_COMM_WORLD));
            expect(t, o, size - 1, want, 3 * size);
            CHECK(memcmp(rout, want + 3 * rank, 3) == 0, "MPI_Reduce_scatter_block %s %s", on, tn);
            checked++;
        }
        /* MINLOC is not defined on characters, in MPICH either. */
        CHECK_CLASS(MPI_Allreduce(in, out, 1, types[t].t, MPI_MINLOC, MPI_COMM_WORLD), MPI_ERR_OP);
    }
    /* MPI_WCHAR stays outside every group, as in MPICH. */
    CHECK_CLASS(MPI_Allreduce(in, out, 1, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("op chars: %d (type, op) pairs checked on %d processes\n", checked, size);
    MPI_Finalize();
    return 0;
}

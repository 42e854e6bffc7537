/* MPI_Reduce_local with every predefined op on every C and Fortran type it applies to,
 * checked against the same operation computed here in C; every other (op, type)
 * combination must fail with MPI_ERR_OP. MINLOC/MAXLOC on every pair type, with ties.
 * Derived types made of one basic type, contiguous and not. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include "mpix_test.h"

#define N 12

/* Operands: small values with zeros (for the logical ops) and no overflow. */
static const int A[N] = {0, 1, -3, 7, 2, 0, 5, -1, 4, 9, -8, 3};
static const int B[N] = {0, 0, 2, -7, 2, 6, -5, 0, 1, 9, 8, -3};

/* The standard's type groups (MPI-4.1 §6.9.2), and G_CHAR: MPI_CHAR and
 * MPI_CHARACTER, which MPICH reduces as integers (its "extra" C integer group). MPICH
 * also applies the logical ops to the Fortran and multi-language integers. */
enum {
    G_CINT = 1, G_FINT = 2, G_FLOAT = 4, G_LOGICAL = 8, G_COMPLEX = 16, G_BYTE = 32,
    G_MULTI = 64, G_PAIR = 128, G_CHAR = 256
};

static const struct {
    MPI_Op op;
    const char *name;
    unsigned groups;
} ops[] = {
    {MPI_MAX, "MPI_MAX", G_CINT | G_FINT | G_FLOAT | G_MULTI | G_CHAR},
    {MPI_MIN, "MPI_MIN", G_CINT | G_FINT | G_FLOAT | G_MULTI | G_CHAR},
    {MPI_SUM, "MPI_SUM", G_CINT | G_FINT | G_FLOAT | G_COMPLEX | G_MULTI | G_CHAR},
    {MPI_PROD, "MPI_PROD", G_CINT | G_FINT | G_FLOAT | G_COMPLEX | G_MULTI | G_CHAR},
    {MPI_LAND, "MPI_LAND", G_CINT | G_LOGICAL | G_FINT | G_MULTI | G_CHAR},
    {MPI_LOR, "MPI_LOR", G_CINT | G_LOGICAL | G_FINT | G_MULTI | G_CHAR},
    {MPI_LXOR, "MPI_LXOR", G_CINT | G_LOGICAL | G_FINT | G_MULTI | G_CHAR},
    {MPI_BAND, "MPI_BAND", G_CINT | G_FINT | G_BYTE | G_MULTI | G_CHAR},
    {MPI_BOR, "MPI_BOR", G_CINT | G_FINT | G_BYTE | G_MULTI | G_CHAR},
    {MPI_BXOR, "MPI_BXOR", G_CINT | G_FINT | G_BYTE | G_MULTI | G_CHAR},
    {MPI_MINLOC, "MPI_MINLOC", G_PAIR},
    {MPI_MAXLOC, "MPI_MAXLOC", G_PAIR},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

static int checked; /* (op, type) combinations whose results were checked */

/* RUN applies op to N elements of type T (MPI type M) and compares each result with
 * EXPR computed in C from x (in) and y (inout). */
#define RUN(T, M, OP, EXPR, INIT_IN, INIT_IO)                                    \
    do {                                                                        \
        T in[N], io[N], want[N];                                                \
        for (int i = 0; i < N; i++) {                                           \
            in[i] = (INIT_IN);                                                  \
            io[i] = (INIT_IO);                                                  \
            T x = in[i], y = io[i];                                             \
            want[i] = (EXPR);                                                   \
            (void)x;                                                            \
            (void)y;                                                            \
        }                                                                       \
        CHECK_OK(MPI_Reduce_local(in, io, N, M, OP));                           \
        for (int i = 0; i < N; i++)                                             \
            CHECK(io[i] == want[i], "%s on %s: element %d wrong", #OP, #M, i);  \
        checked++;                                                              \
    } while (0)

#define ARITH(T, M, IN, IO)                                                     \
    do {                                                                        \
        RUN(T, M, MPI_MAX, x > y ? x : y, IN, IO);                              \
        RUN(T, M, MPI_MIN, x < y ? x : y, IN, IO);                              \
        RUN(T, M, MPI_SUM, x + y, IN, IO);                                      \
        RUN(T, M, MPI_PROD, x * y, IN, IO);                                     \
    } while (0)

#define LOGICAL(T, M, IN, IO)                                                   \
    do {                                                                        \
        RUN(T, M, MPI_LAND, x && y, IN, IO);                                    \
        RUN(T, M, MPI_LOR, x || y, IN, IO);                                     \
        RUN(T, M, MPI_LXOR, !x != !y, IN, IO);                                  \
    } while (0)

#define BITWISE(T, M, IN, IO)                                                   \
    do {                                                                        \
        RUN(T, M, MPI_BAND, x & y, IN, IO);                                     \
        RUN(T, M, MPI_BOR, x | y, IN, IO);                                      \
        RUN(T, M, MPI_BXOR, x ^ y, IN, IO);                                     \
    } while (0)

#define C_INTEGER(T, M)                                                         \
    do {                                                                        \
        ARITH(T, M, (T)A[i], (T)B[i]);                                          \
        LOGICAL(T, M, (T)A[i], (T)B[i]);                                        \
        BITWISE(T, M, (T)A[i], (T)B[i]);                                        \
    } while (0)

#define F_INTEGER(T, M) C_INTEGER(T, M)

#define FLOATING(T, M) ARITH(T, M, (T)(A[i] * 0.25), (T)(B[i] * 0.5))

#define COMPLEX(T, M)                                                           \
    do {                                                                        \
        RUN(T, M, MPI_SUM, x + y, (T)(A[i] * 0.25 + B[i] * 0.5 * I), (T)(B[i] - A[i] * I)); \
        RUN(T, M, MPI_PROD, x * y, (T)(A[i] * 0.25 + B[i] * 0.5 * I), (T)(B[i] - A[i] * I)); \
    } while (0)

static void test_arithmetic(void)
{
    C_INTEGER(int, MPI_INT);
    C_INTEGER(long, MPI_LONG);
    C_INTEGER(short, MPI_SHORT);
    C_INTEGER(unsigned short, MPI_UNSIGNED_SHORT);
    C_INTEGER(unsigned, MPI_UNSIGNED);
    C_INTEGER(unsigned long, MPI_UNSIGNED_LONG);
    C_INTEGER(long long, MPI_LONG_LONG_INT);
    C_INTEGER(long long, MPI_LONG_LONG);
    C_INTEGER(unsigned long long, MPI_UNSIGNED_LONG_LONG);
    C_INTEGER(signed char, MPI_SIGNED_CHAR);
    C_INTEGER(unsigned char, MPI_UNSIGNED_CHAR);
    C_INTEGER(int8_t, MPI_INT8_T);
    C_INTEGER(int16_t, MPI_INT16_T);
    C_INTEGER(int32_t, MPI_INT32_T);
    C_INTEGER(int64_t, MPI_INT64_T);
    C_INTEGER(uint8_t, MPI_UINT8_T);
    C_INTEGER(uint16_t, MPI_UINT16_T);
    C_INTEGER(uint32_t, MPI_UINT32_T);
    C_INTEGER(uint64_t, MPI_UINT64_T);

    /* C's char and Fortran's character, as MPICH computes them: C char arithmetic
     * (signed or not as the platform's char is), MPI_CHARACTER as signed bytes. The
     * wrap-around is checked with values past the range. */
    C_INTEGER(char, MPI_CHAR);
    C_INTEGER(signed char, MPI_CHARACTER);
    RUN(char, MPI_CHAR, MPI_SUM, (char)(x + y), (char)(100 + i), (char)(100 + 2 * i));
    RUN(char, MPI_CHAR, MPI_PROD, (char)(x * y), (char)(16 + i), (char)(17 + i));
    RUN(char, MPI_CHAR, MPI_MAX, x > y ? x : y, (char)(120 + 3 * i), (char)(i - 6));
    RUN(signed char, MPI_CHARACTER, MPI_MIN, x < y ? x : y, (signed char)(200 + i), (signed char)(i));

    /* Fortran integers and the multi-language types (logical ops as MPICH allows). */
    F_INTEGER(int, MPI_INTEGER);
    F_INTEGER(int8_t, MPI_INTEGER1);
    F_INTEGER(int16_t, MPI_INTEGER2);
    F_INTEGER(int32_t, MPI_INTEGER4);
    F_INTEGER(int64_t, MPI_INTEGER8);
    F_INTEGER(MPI_Aint, MPI_AINT);
    F_INTEGER(MPI_Offset, MPI_OFFSET);
    F_INTEGER(MPI_Count, MPI_COUNT);

    BITWISE(unsigned char, MPI_BYTE, (unsigned char)A[i], (unsigned char)B[i]);

    FLOATING(float, MPI_FLOAT);
    FLOATING(double, MPI_DOUBLE);
    FLOATING(long double, MPI_LONG_DOUBLE);
    FLOATING(float, MPI_REAL);
    FLOATING(double, MPI_DOUBLE_PRECISION);
    FLOATING(float, MPI_REAL4);
    FLOATING(double, MPI_REAL8);
    FLOATING(_Float128, MPI_REAL16);
    FLOATING(_Float16, MPIX_C_FLOAT16);

    /* Values that need long double's precision or range: the sum must be computed in
     * long double, not double. */
    RUN(long double, MPI_LONG_DOUBLE, MPI_SUM, x + y, 1.0L + i * 0x1p-60L, 0x1p-62L * (i + 1));
    RUN(long double, MPI_LONG_DOUBLE, MPI_PROD, x * y, 0x1p+9000L * (i + 1), 3.0L);
    RUN(_Float128, MPI_REAL16, MPI_SUM, x + y, 1 + i * (_Float128)0x1p-100, (_Float128)0x1p-110);

    LOGICAL(bool, MPI_C_BOOL, A[i] != 0, B[i] != 0);
    LOGICAL(bool, MPI_CXX_BOOL, A[i] != 0, B[i] != 0);
    LOGICAL(int, MPI_LOGICAL, A[i] != 0, B[i] != 0);

    COMPLEX(float _Complex, MPI_C_FLOAT_COMPLEX);
    COMPLEX(double _Complex, MPI_C_DOUBLE_COMPLEX);
    COMPLEX(long double _Complex, MPI_C_LONG_DOUBLE_COMPLEX);
    COMPLEX(float _Complex, MPI_CXX_FLOAT_COMPLEX);
    COMPLEX(double _Complex, MPI_CXX_DOUBLE_COMPLEX);
    COMPLEX(long double _Complex, MPI_CXX_LONG_DOUBLE_COMPLEX);
    COMPLEX(float _Complex, MPI_COMPLEX);
    COMPLEX(double _Complex, MPI_DOUBLE_COMPLEX);
    COMPLEX(float _Complex, MPI_COMPLEX8);
    COMPLEX(double _Complex, MPI_COMPLEX16);
    COMPLEX(_Complex _Float128, MPI_COMPLEX32);
}

/* PAIR checks MINLOC and MAXLOC on a pair type against the rule: the better value
 * wins, equal values keep the lower index. Values come from a small range so that
 * ties are common. */
#define PAIR(VT, IT, M)                                                          \
    do {                                                                        \
        struct { VT v; IT i; } in[N], io[N], want[N];                           \
        for (int loc = 0; loc < 2; loc++) {                                     \
            MPI_Op op = loc ? MPI_MAXLOC : MPI_MINLOC;                          \
            for (int i = 0; i < N; i++) {                                       \
                in[i].v = (VT)(A[i] % 3);                                       \
                in[i].i = (IT)(i % 4);                                          \
                io[i].v = (VT)(B[i] % 3);                                       \
                io[i].i = (IT)((i * 7) % 5);                                    \
                VT x = in[i].v, y = io[i].v;                                    \
                want[i] = io[i];                                                \
                if (loc ? x > y : x < y)                                        \
                    want[i] = in[i];                                            \
                else if (x == y && in[i].i < io[i].i)                           \
                    want[i].i = in[i].i;                                        \
            }                                                                   \
            CHECK_OK(MPI_Reduce_local(in, io, N, M, op));                       \
            for (int i = 0; i < N; i++)                                         \
                CHECK(io[i].v == want[i].v && io[i].i == want[i].i,             \
                      "%s on %s: element %d is (%g,%g), want (%g,%g)",          \
                      loc ? "MPI_MAXLOC" : "MPI_MINLOC", #M, i, (double)io[i].v, \
                      (double)io[i].i, (double)want[i].v, (double)want[i].i);   \
            checked++;                                                          \
        }                                                                       \
    } while (0)

static void test_pairs(void)
{
    PAIR(int, int, MPI_2INT);
    PAIR(float, int, MPI_FLOAT_INT);
    PAIR(double, int, MPI_DOUBLE_INT);
    PAIR(long, int, MPI_LONG_INT);
    PAIR(short, int, MPI_SHORT_INT);
    PAIR(long double, int, MPI_LONG_DOUBLE_INT);
    PAIR(int, int, MPI_2INTEGER);
    PAIR(float, float, MPI_2REAL);
    PAIR(double, double, MPI_2DOUBLE_PRECISION);

    /* The tie rule directly: equal values, the lower index wins whichever side has it. */
    struct { double v; int i; } a = {2.5, 7}, b = {2.5, 3};
    CHECK_OK(MPI_Reduce_local(&a, &b, 1, MPI_DOUBLE_INT, MPI_MINLOC));
    CHECK(b.v == 2.5 && b.i == 3, "tie: (%g,%d)", b.v, b.i);
    a.i = 1;
    CHECK_OK(MPI_Reduce_local(&a, &b, 1, MPI_DOUBLE_INT, MPI_MAXLOC));
    CHECK(b.v == 2.5 && b.i == 1, "tie: (%g,%d)", b.v, b.i);
}

/* Every predefined type, with the groups it belongs to: each op must work exactly on
 * the types of its groups. */
static const struct {
    MPI_Datatype t;
    const char *name;
    unsigned groups;
} types[] = {
    {MPI_CHAR, "MPI_CHAR", G_CHAR},
    {MPI_WCHAR, "MPI_WCHAR", 0},
    {MPI_PACKED, "MPI_PACKED", 0},
    {MPI_CHARACTER, "MPI_CHARACTER", G_CHAR},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", G_CINT},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", G_CINT},
    {MPI_BYTE, "MPI_BYTE", G_BYTE},
    {MPI_SHORT, "MPI_SHORT", G_CINT},
    {MPI_INT, "MPI_INT", G_CINT},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", G_CINT},
    {MPI_UINT16_T, "MPI_UINT16_T", G_CINT},
    {MPI_INTEGER, "MPI_INTEGER", G_FINT},
    {MPI_INTEGER8, "MPI_INTEGER8", G_FINT},
    {MPI_FLOAT, "MPI_FLOAT", G_FLOAT},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", G_FLOAT},
    {MPI_REAL16, "MPI_REAL16", G_FLOAT},
    {MPIX_C_FLOAT16, "MPIX_C_FLOAT16", G_FLOAT},
    {MPI_LOGICAL, "MPI_LOGICAL", G_LOGICAL},
    {MPI_C_BOOL, "MPI_C_BOOL", G_LOGICAL},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", G_LOGICAL},
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", G_COMPLEX},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", G_COMPLEX},
    {MPI_COMPLEX32, "MPI_COMPLEX32", G_COMPLEX},
    {MPI_AINT, "MPI_AINT", G_MULTI},
    {MPI_OFFSET, "MPI_OFFSET", G_MULTI},
    {MPI_COUNT, "MPI_COUNT", G_MULTI},
    {MPI_2INT, "MPI_2INT", G_PAIR},
    {MPI_SHORT_INT, "MPI_SHORT_INT", G_PAIR},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", G_PAIR},
    {MPI_2REAL, "MPI_2REAL", G_PAIR},
};

static void test_allowed(void)
{
    unsigned char in[64], io[64];
    int refused = 0;
    for (unsigned t = 0; t < sizeof types / sizeof types[0]; t++) {
        for (int o = 0; o < NOPS; o++) {
            memset(in, 1, sizeof in);
            memset(io, 1, sizeof io);
            int want = (ops[o].groups & types[t].groups) ? MPI_SUCCESS : MPI_ERR_OP;
            int rc = MPI_Reduce_local(in, io, 1, types[t].t, ops[o].op);
            int cls = mpix_test_class(rc);
            CHECK(cls == want, "%s on %s: class %d, want %d", ops[o].name, types[t].name, cls, want);
            if (rc != MPI_SUCCESS) {
                char msg[MPI_MAX_ERROR_STRING];
                int len;
                CHECK_OK(MPI_Error_string(rc, msg, &len));
                CHECK(len > 0 && (int)strlen(msg) == len, "%s: message '%s' of length %d", ops[o].name, msg, len);
                refused++;
            }
        }
        /* MPI_REPLACE copies and MPI_NO_OP leaves alone, whatever the type. */
        for (int i = 0; i < 64; i++)
            in[i] = (unsigned char)i, io[i] = 0xee;
        int size;
        MPI_Type_size(types[t].t, &size);
        CHECK_OK(MPI_Reduce_local(in, io, 2, types[t].t, MPI_NO_OP));
        for (int i = 0; i < 64; i++)
            CHECK(io[i] == 0xee, "MPI_NO_OP on %s changed byte %d", types[t].name, i);
        CHECK_OK(MPI_Reduce_local(in, io, 1, types[t].t, MPI_REPLACE));
        for (int i = 0; i < size && types[t].groups != G_PAIR; i++) /* pairs have padding */
            CHECK(io[i] == i, "MPI_REPLACE on %s: byte %d is %d", types[t].name, i, io[i]);
    }
    CHECK(refused > 150, "only %d combinations refused", refused);
}

/* Derived types whose type map holds one basic type. */
static void test_derived(void)
{
    /* Every other double: a vector, not contiguous. */
    MPI_Datatype vec, pairs, pvec, mixed;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec));
    CHECK_OK(MPI_Type_commit(&vec));
    double a[6] = {1, 2, 3, 4, 5, 6}, b[6] = {10, 20, 30, 40, 50, 60};
    CHECK_OK(MPI_Reduce_local(a, b, 1, vec, MPI_SUM));
    double want[6] = {11, 20, 33, 40, 55, 60};
    for (int i = 0; i < 6; i++)
        CHECK(b[i] == want[i], "vector sum: b[%d] = %g, want %g", i, b[i], want[i]);

    /* A contiguous type of MPI_2INT. */
    CHECK_OK(MPI_Type_contiguous(3, MPI_2INT, &pairs));
    CHECK_OK(MPI_Type_commit(&pairs));
    int p[6] = {5, 0, 2, 1, 7, 2}, q[6] = {5, 9, 3, 4, 1, 8};
    CHECK_OK(MPI_Reduce_local(p, q, 1, pairs, MPI_MINLOC));
    int qwant[6] = {5, 0, 2, 1, 1, 8};
    for (int i = 0; i < 6; i++)
        CHECK(q[i] == qwant[i], "contiguous 2int minloc: q[%d] = %d, want %d", i, q[i], qwant[i]);

    /* Every other MPI_DOUBLE_INT (the pack path, padding between value and index). */
    struct { double v; int i; } x[4] = {{1, 1}, {0, 0}, {8, 5}, {0, 0}}, y[4] = {{1, 0}, {9, 9}, {7, 3}, {9, 9}};
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_DOUBLE_INT, &pvec));
    CHECK_OK(MPI_Type_commit(&pvec));
    CHECK_OK(MPI_Reduce_local(x, y, 1, pvec, MPI_MAXLOC));
    CHECK(y[0].v == 1 && y[0].i == 0 && y[1].v == 9 && y[1].i == 9 && y[2].v == 8 && y[2].i == 5 &&
              y[3].i == 9, "vector of MPI_DOUBLE_INT maxloc: (%g,%d) (%g,%d)", y[0].v, y[0].i, y[2].v, y[2].i);

    /* A struct of an int and a double mixes basic types: no predefined op but
     * MPI_REPLACE and MPI_NO_OP applies. */
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype tt[2] = {MPI_INT, MPI_DOUBLE};
    CHECK_OK(MPI_Type_create_struct(2, bl, disp, tt, &mixed));
    CHECK_OK(MPI_Type_commit(&mixed));
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, mixed, MPI_SUM), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, vec, MPI_BAND), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, pairs, MPI_SUM), MPI_ERR_OP);
    double s[2] = {1, 2}, d[2] = {3, 4};
    CHECK_OK(MPI_Reduce_local(s, d, 1, mixed, MPI_REPLACE));
    CHECK(d[1] == 2 && memcmp(&d[0], &s[0], sizeof(int)) == 0, "MPI_REPLACE on a struct");

    MPI_Type_free(&vec);
    MPI_Type_free(&pairs);
    MPI_Type_free(&pvec);
    MPI_Type_free(&mixed);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_arithmetic();
    test_pairs();
    test_allowed();
    test_derived();
    CHECK(checked > 300, "only %d combinations checked", checked);
    printf("op predefined: %d combinations checked\n", checked);
    MPI_Finalize();
    return 0;
}

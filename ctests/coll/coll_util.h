/* Helpers for the collective tests: test datatypes described by their layout, buffers
 * filled with a poison value, the four ways of running a collective (blocking,
 * nonblocking completed by MPI_Wait, nonblocking completed by an MPI_Test loop,
 * persistent started twice) and serial references. Every rank can compute what every
 * other rank contributed, so each checks its own result against a serial computation. */
#ifndef COLL_UTIL_H
#define COLL_UTIL_H
#include "mpix_test.h"

/* A test datatype: each element holds k values of base (MPI_INT or MPI_DOUBLE) at
 * offs[] (in base units); elements are ext base units apart. */
typedef struct {
    const char *name;
    MPI_Datatype type;
    MPI_Datatype base;
    int k;
    int offs[4];
    int ext;
} lay_t;

enum { L_INT, L_DOUBLE, L_VEC, L_MAT, L_MATGAP, NLAYS };
static lay_t lays[NLAYS];

static inline void lays_init(void)
{
    MPI_Datatype vec, mat, matgap;
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec)); /* two ints, one-int gap */
    CHECK_OK(MPI_Type_contiguous(4, MPI_DOUBLE, &mat)); /* a 2x2 matrix */
    CHECK_OK(MPI_Type_vector(4, 1, 2, MPI_DOUBLE, &matgap)); /* a 2x2 matrix with gaps */
    CHECK_OK(MPI_Type_commit(&vec));
    CHECK_OK(MPI_Type_commit(&mat));
    CHECK_OK(MPI_Type_commit(&matgap));
    lays[L_INT] = (lay_t){"int", MPI_INT, MPI_INT, 1, {0}, 1};
    lays[L_DOUBLE] = (lay_t){"double", MPI_DOUBLE, MPI_DOUBLE, 1, {0}, 1};
    lays[L_VEC] = (lay_t){"vector", vec, MPI_INT, 2, {0, 2}, 3};
    lays[L_MAT] = (lay_t){"matrix", mat, MPI_DOUBLE, 4, {0, 1, 2, 3}, 4};
    lays[L_MATGAP] = (lay_t){"gapped matrix", matgap, MPI_DOUBLE, 4, {0, 2, 4, 6}, 7};
}

static inline void lays_free(void)
{
    MPI_Type_free(&lays[L_VEC].type);
    MPI_Type_free(&lays[L_MAT].type);
    MPI_Type_free(&lays[L_MATGAP].type);
}

static inline size_t bsize(const lay_t *L) { return L->base == MPI_INT ? sizeof(int) : sizeof(double); }

#define POISON_INT 0x5a5a5a5a
#define POISON_DBL (-12345.5)

/* lalloc returns a poisoned buffer of count elements (plus one, so that empty
 * buffers are real allocations). */
static inline void *lalloc(const lay_t *L, long count)
{
    size_t words = (size_t)(count + 1) * L->ext;
    void *b = malloc(words * bsize(L));
    CHECK(b != NULL, "out of memory");
    return b;
}

static inline void lpoison(const lay_t *L, void *b, long count)
{
    size_t words = (size_t)(count + 1) * L->ext;
    for (size_t w = 0; w < words; w++) {
        if (L->base == MPI_INT)
            ((int *)b)[w] = POISON_INT;
        else
            ((double *)b)[w] = POISON_DBL;
    }
}

static inline void *lnew(const lay_t *L, long count)
{
    void *b = lalloc(L, count);
    lpoison(L, b, count);
    return b;
}

static inline void lset(const lay_t *L, void *b, long i, int j, long v)
{
    size_t w = (size_t)i * L->ext + L->offs[j];
    if (L->base == MPI_INT)
        ((int *)b)[w] = (int)v;
    else
        ((double *)b)[w] = (double)v;
}

static inline double lget(const lay_t *L, const void *b, long i, int j)
{
    size_t w = (size_t)i * L->ext + L->offs[j];
    return L->base == MPI_INT ? (double)((const int *)b)[w] : ((const double *)b)[w];
}

/* lcopy copies element si of src to element di of dst (same layout). */
static inline void lcopy(const lay_t *L, void *dst, long di, const void *src, long si)
{
    for (int j = 0; j < L->k; j++)
        lset(L, dst, di, j, (long)lget(L, src, si, j));
}

/* lcompare returns the first word (over count+1 elements) where a and b differ, or -1;
 * gaps and unwritten elements hold the poison in the expected buffer. */
static inline long lcompare(const lay_t *L, const void *a, const void *b, long count)
{
    size_t words = (size_t)(count + 1) * L->ext;
    for (size_t w = 0; w < words; w++) {
        int same = L->base == MPI_INT ? ((const int *)a)[w] == ((const int *)b)[w]
                                      : ((const double *)a)[w] == ((const double *)b)[w];
        if (!same)
            return (long)w;
    }
    return -1;
}

static inline double lword(const lay_t *L, const void *b, long w)
{
    return L->base == MPI_INT ? (double)((const int *)b)[w] : ((const double *)b)[w];
}

#define CHECK_BUF(L, got, want, count, ...)                                               \
    do {                                                                                  \
        long w_ = lcompare((L), (got), (want), (count));                                  \
        if (w_ >= 0) {                                                                    \
            fprintf(stderr, "rank %d: %s: word %ld (element %ld) is %g, want %g: ", g_rank, \
                    (L)->name, w_, w_ / (L)->ext, lword((L), (got), w_), lword((L), (want), w_)); \
            CHECK(0, __VA_ARGS__);                                                        \
        }                                                                                 \
    } while (0)

static int g_rank, g_size;

/* val is value j of element i that rank contributes at iteration it: small integers,
 * so that doubles and ints compute them exactly. */
static inline long val(int it, int rank, long i, int j)
{
    return (long)((it * 7 + 1) * (rank + 2) + (i % 1000) * 3 + j * 5 + (i * (rank + 1)) % 7) % 23 - 9;
}

/* fillc writes rank's contribution (count elements from element 0) into b. */
static inline void fillc(const lay_t *L, void *b, long count, int it, int rank)
{
    for (long i = 0; i < count; i++)
        for (int j = 0; j < L->k; j++)
            lset(L, b, i, j, val(it, rank, i, j));
}

/* ---- running a collective in each mode ---- */

enum { M_BLOCK, M_WAIT, M_TEST, M_PERSIST, NMODES };
static const char *mode_names[NMODES] __attribute__((unused)) = {"blocking", "nonblocking+wait", "nonblocking+test", "persistent"};

/* iters is how many times a mode runs the collective: a persistent one starts twice
 * with different data. */
static inline int iters(int mode) { return mode == M_PERSIST ? 2 : 1; }

static inline void complete(int mode, int it, MPI_Request *req)
{
    MPI_Status st;
    if (mode == M_TEST || (mode == M_PERSIST && it == 1)) {
        int flag = 0;
        long spins = 0;
        while (!flag) {
            CHECK_OK(MPI_Test(req, &flag, &st));
            spins++;
        }
        (void)spins;
    } else {
        CHECK_OK(MPI_Wait(req, &st));
    }
    if (mode == M_PERSIST)
        CHECK(*req != MPI_REQUEST_NULL, "a persistent collective request was freed by completion");
    else
        CHECK(*req == MPI_REQUEST_NULL, "a completed nonblocking collective left its request");
}

/* RUN runs one collective in mode (iteration it) with req: BLOCK is the blocking
 * call, NB the nonblocking one and INIT the persistent initialization (all three
 * using req where they take a request). */
#define RUN(mode, it, req, BLOCK, NB, INIT)                         \
    do {                                                            \
        switch (mode) {                                             \
        case M_BLOCK:                                               \
            CHECK_OK(BLOCK);                                        \
            break;                                                  \
        case M_WAIT:                                                \
        case M_TEST:                                                \
            CHECK_OK(NB);                                           \
            complete((mode), (it), &(req));                         \
            break;                                                  \
        default:                                                    \
            if ((it) == 0)                                          \
                CHECK_OK(INIT);                                     \
            CHECK_OK(MPI_Start(&(req)));                            \
            complete((mode), (it), &(req));                         \
            break;                                                  \
        }                                                           \
    } while (0)

/* DONE frees a persistent request after its last iteration. */
#define DONE(mode, req)                                             \
    do {                                                            \
        if ((mode) == M_PERSIST) {                                  \
            CHECK_OK(MPI_Request_free(&(req)));                     \
            CHECK((req) == MPI_REQUEST_NULL, "free did not null");  \
        }                                                           \
    } while (0)

static inline void coll_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    lays_init();
}

/* The roots each rooted collective is tried with: 0, the last rank and one between. */
static inline int nroots(int size) { return size == 1 ? 1 : size == 2 ? 2 : 3; }
static inline int root_at(int k, int size) { return k == 0 ? 0 : k == 1 ? size - 1 : size / 2; }

#endif

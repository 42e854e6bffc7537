/* rma_dtypes: derived datatypes at the origin, at the target and at both, with origin
 * and target types that differ but share a type signature, on every window kind
 * (disp_unit sizeof(int), dynamic windows 1) under fence, post/start/complete/wait and
 * lock_all. Each rank works on its right neighbour's window; the target computes what
 * its window must hold with plain loops (not with the library's datatype engine), and
 * checks that the gaps between the elements a type selects are untouched.
 *   put:  vector -> contiguous, contiguous -> vector, indexed -> indexed (different
 *         blocks), contiguous -> resized (count 10), contiguous(16) -> 16 x int,
 *         a 4096-block vector -> contiguous;
 *   get:  subarray -> contiguous, vector -> indexed, a 4096-block vector -> contiguous;
 *   accumulate: struct of one basic type -> vector (SUM), contiguous(5 doubles) x 2 ->
 *         vector of doubles (MAX), vector of contiguous -> int (REPLACE), vector of
 *         MPI_2INT -> MPI_2INT (MINLOC), hvector -> hindexed (SUM);
 *   get_accumulate: vector origin, indexed result, subarray target (SUM). */
#include "rma_util.h"

#define WN 24576 /* ints in each window */
#define R_A 0
#define R_B 64
#define R_C 128
#define R_D 256 /* an 8x8 matrix read by a subarray */
#define R_E 384
#define R_F 512 /* 20 doubles */
#define R_G 640 /* an 8x8 matrix for get_accumulate */
#define R_H 768
#define R_I 832
#define R_J 896
#define R_K 1024 /* MPI_2INT pairs */
#define R_N 1100 /* read by a vector into an indexed origin */
#define R_P 1200 /* hindexed target of an hvector accumulate */
#define R_L 2048 /* 4096 ints put by a long vector */
#define R_M 8192 /* 4096 x stride 3 read by a long vector */
#define NS 16384

static long nchecks;

typedef struct {
    int v, i;
} int2;

static int tval(int t, int i) { return t * 1000000 + i; }
static double dval(int t, int k) { return t + k * 0.5 - 3; }
static int2 pval(int t, int k)
{
    int2 p = {(k * 7 + t) % 5, t * 100 + k};
    return p;
}
static int sval(int o, int i) { return 500000 + o * 1000 + i; }
static double sdval(int o, int k) { return o + k * 0.25 - 2; }
static int2 spval(int o, int k)
{
    int2 p = {(k * 3 + o) % 5, o * 100 + k + 50};
    return p;
}

/* init writes rank t's window at the start of a round */
static void init(int *win, int t)
{
    for (int i = 0; i < WN; i++)
        win[i] = tval(t, i);
    /* doubles and pairs go through memcpy: the window is an int array */
    double d[20];
    for (int k = 0; k < 20; k++)
        d[k] = dval(t, k);
    memcpy(win + R_F, d, sizeof d);
    int2 p[8];
    for (int k = 0; k < 8; k++)
        p[k] = pval(t, k);
    memcpy(win + R_K, p, sizeof p);
}

/* expect applies origin o's operations to t's initial window */
static void expect(int *e, int t, int o)
{
    init(e, t);
    for (int k = 0; k < 16; k++) /* vector(8,2,5) -> contiguous */
        e[R_A + k] = sval(o, (k / 2) * 5 + k % 2);
    for (int k = 0; k < 16; k++) /* contiguous -> vector(8,2,3) */
        e[R_B + (k / 2) * 3 + k % 2] = sval(o, 100 + k);
    {
        static const int from[8] = {0, 1, 2, 5, 9, 10, 11, 12}, to[8] = {1, 2, 4, 5, 10, 11, 12, 13};
        for (int k = 0; k < 8; k++) /* indexed {3,1,4}@{0,5,9} -> indexed {2,2,4}@{1,4,10} */
            e[R_C + to[k]] = sval(o, 200 + from[k]);
    }
    {
        static const int from[6] = {0, 1, 3, 8, 9, 10}, to[6] = {0, 1, 4, 5, 8, 9};
        for (int k = 0; k < 6; k++) /* struct {2,1,3} ints -> vector(3,2,4), SUM */
            e[R_E + to[k]] += sval(o, 300 + from[k]);
    }
    {
        double d[20];
        memcpy(d, e + R_F, sizeof d);
        for (int k = 0; k < 10; k++) /* 2 x contiguous(5 doubles) -> vector(10,1,2), MAX */
            d[2 * k] = d[2 * k] > sdval(o, k) ? d[2 * k] : sdval(o, k);
        memcpy(e + R_F, d, sizeof d);
    }
    {
        static const int to[4] = {27, 28, 35, 36};
        for (int k = 0; k < 4; k++) /* vector(4,1,2) -> subarray {2,2}@{3,3}, SUM */
            e[R_G + to[k]] += sval(o, 400 + 2 * k);
    }
    for (int k = 0; k < 10; k++) /* contiguous -> resized(int, extent 3 ints) x 10 */
        e[R_H + 3 * k] = sval(o, 500 + k);
    for (int k = 0; k < 16; k++) /* contiguous(16 ints) -> 16 ints */
        e[R_I + k] = sval(o, 600 + k);
    {
        static const int from[6] = {0, 1, 4, 5, 8, 9};
        for (int k = 0; k < 6; k++) /* vector(3,1,2) of contiguous(2) -> 6 ints, REPLACE */
            e[R_J + k] = sval(o, 700 + from[k]);
    }
    {
        int2 p[3];
        memcpy(p, e + R_K, sizeof p);
        for (int k = 0; k < 3; k++) { /* vector(3,1,2) of MPI_2INT -> 3 MPI_2INT, MINLOC */
            int2 s = spval(o, 2 * k);
            if (s.v < p[k].v)
                p[k] = s;
            else if (s.v == p[k].v && s.i < p[k].i)
                p[k].i = s.i;
        }
        memcpy(e + R_K, p, sizeof p);
    }
    {
        static const int to[6] = {0, 1, 2, 10, 11, 12};
        for (int k = 0; k < 6; k++) /* hvector(2,3,40 B) -> hindexed {3,3}@{0,40 B}, SUM */
            e[R_P + to[k]] += sval(o, 800 + (k / 3) * 10 + k % 3);
    }
    for (int k = 0; k < 4096; k++) /* vector(4096,1,2) -> contiguous */
        e[R_L + k] = sval(o, 2 * k);
}

typedef struct {
    MPI_Datatype vec8_2_5, vec8_2_3, idx_o, idx_t, sub_d, vec6_2_4, idx_57, strct, vec3_2_4, cont5d, vecd, vec4_1_2,
        idx_res, sub_g, resized, cont16, cont2, vec_of_cont, vec2int, hvec, hidx, long_o, long_t;
} types;

static void commit(MPI_Datatype *t) { CHECK_OK(MPI_Type_commit(t)); }

static void make_types(types *T)
{
    CHECK_OK(MPI_Type_vector(8, 2, 5, MPI_INT, &T->vec8_2_5));
    CHECK_OK(MPI_Type_vector(8, 2, 3, MPI_INT, &T->vec8_2_3));
    int bo[3] = {3, 1, 4}, doo[3] = {0, 5, 9}, bt[3] = {2, 2, 4}, dt[3] = {1, 4, 10};
    CHECK_OK(MPI_Type_indexed(3, bo, doo, MPI_INT, &T->idx_o));
    CHECK_OK(MPI_Type_indexed(3, bt, dt, MPI_INT, &T->idx_t));
    int sizes[2] = {8, 8}, sub[2] = {4, 3}, start[2] = {2, 1};
    CHECK_OK(MPI_Type_create_subarray(2, sizes, sub, start, MPI_ORDER_C, MPI_INT, &T->sub_d));
    CHECK_OK(MPI_Type_vector(6, 2, 4, MPI_INT, &T->vec6_2_4));
    int b57[2] = {5, 7}, d57[2] = {0, 8};
    CHECK_OK(MPI_Type_indexed(2, b57, d57, MPI_INT, &T->idx_57));
    int sb[3] = {2, 1, 3};
    MPI_Aint sd[3] = {0, 12, 32};
    MPI_Datatype st[3] = {MPI_INT, MPI_INT, MPI_INT};
    CHECK_OK(MPI_Type_create_struct(3, sb, sd, st, &T->strct));
    CHECK_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &T->vec3_2_4));
    CHECK_OK(MPI_Type_contiguous(5, MPI_DOUBLE, &T->cont5d));
    CHECK_OK(MPI_Type_vector(10, 1, 2, MPI_DOUBLE, &T->vecd));
    CHECK_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &T->vec4_1_2));
    int br[2] = {1, 3}, dr[2] = {0, 5};
    CHECK_OK(MPI_Type_indexed(2, br, dr, MPI_INT, &T->idx_res));
    int sub2[2] = {2, 2}, start2[2] = {3, 3};
    CHECK_OK(MPI_Type_create_subarray(2, sizes, sub2, start2, MPI_ORDER_C, MPI_INT, &T->sub_g));
    CHECK_OK(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &T->resized));
    CHECK_OK(MPI_Type_contiguous(16, MPI_INT, &T->cont16));
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &T->cont2));
    CHECK_OK(MPI_Type_vector(3, 1, 2, T->cont2, &T->vec_of_cont));
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_2INT, &T->vec2int));
    CHECK_OK(MPI_Type_create_hvector(2, 3, 10 * sizeof(int), MPI_INT, &T->hvec));
    int hb[2] = {3, 3};
    MPI_Aint hd[2] = {0, 10 * sizeof(int)};
    CHECK_OK(MPI_Type_create_hindexed(2, hb, hd, MPI_INT, &T->hidx));
    CHECK_OK(MPI_Type_vector(4096, 1, 2, MPI_INT, &T->long_o));
    CHECK_OK(MPI_Type_vector(4096, 1, 3, MPI_INT, &T->long_t));
    MPI_Datatype *all = (MPI_Datatype *)T;
    for (size_t i = 0; i < sizeof *T / sizeof(MPI_Datatype); i++)
        commit(&all[i]);
}

static void free_types(types *T)
{
    MPI_Datatype *all = (MPI_Datatype *)T;
    for (size_t i = 0; i < sizeof *T / sizeof(MPI_Datatype); i++)
        CHECK_OK(MPI_Type_free(&all[i]));
}

/* origin buffers */
typedef struct {
    int *s;      /* NS ints: sval(o, i) */
    double *sd;  /* 16 doubles */
    int2 *sp;    /* 8 pairs */
    int *g_sub;  /* get: subarray -> 12 ints */
    int *g_idx;  /* get: vector -> indexed (16 ints, gaps -7) */
    int *ga_res; /* get_accumulate result (8 ints, gaps -7) */
    int *g_long; /* get: long vector -> 4096 ints */
} obufs;

static MPI_Aint D(rma_win *w, int t, int ints) { return rma_disp(w, t, (MPI_Aint)ints * sizeof(int)); }

static void issue(rma_win *w, int t, types *T, obufs *b)
{
    MPI_Win win = w->win;
    int *s = b->s;
    CHECK_OK(MPI_Put(s, 1, T->vec8_2_5, t, D(w, t, R_A), 16, MPI_INT, win));
    CHECK_OK(MPI_Put(s + 100, 16, MPI_INT, t, D(w, t, R_B), 1, T->vec8_2_3, win));
    CHECK_OK(MPI_Put(s + 200, 1, T->idx_o, t, D(w, t, R_C), 1, T->idx_t, win));
    CHECK_OK(MPI_Get(b->g_sub, 12, MPI_INT, t, D(w, t, R_D), 1, T->sub_d, win));
    CHECK_OK(MPI_Get(b->g_idx, 1, T->idx_57, t, D(w, t, R_N), 1, T->vec6_2_4, win));
    CHECK_OK(MPI_Accumulate(s + 300, 1, T->strct, t, D(w, t, R_E), 1, T->vec3_2_4, MPI_SUM, win));
    CHECK_OK(MPI_Accumulate(b->sd, 2, T->cont5d, t, D(w, t, R_F), 1, T->vecd, MPI_MAX, win));
    CHECK_OK(MPI_Get_accumulate(s + 400, 1, T->vec4_1_2, b->ga_res, 1, T->idx_res, t, D(w, t, R_G), 1, T->sub_g,
                                MPI_SUM, win));
    CHECK_OK(MPI_Put_c(s + 500, 10, MPI_INT, t, D(w, t, R_H), 10, T->resized, win));
    CHECK_OK(MPI_Put(s + 600, 1, T->cont16, t, D(w, t, R_I), 16, MPI_INT, win));
    CHECK_OK(MPI_Accumulate_c(s + 700, 1, T->vec_of_cont, t, D(w, t, R_J), 6, MPI_INT, MPI_REPLACE, win));
    CHECK_OK(MPI_Accumulate(b->sp, 1, T->vec2int, t, D(w, t, R_K), 3, MPI_2INT, MPI_MINLOC, win));
    CHECK_OK(MPI_Accumulate(s + 800, 1, T->hvec, t, D(w, t, R_P), 1, T->hidx, MPI_SUM, win));
    CHECK_OK(MPI_Put(s, 1, T->long_o, t, D(w, t, R_L), 4096, MPI_INT, win));
    CHECK_OK(MPI_Get_c(b->g_long, 4096, MPI_INT, t, D(w, t, R_M), 1, T->long_t, win));
}

static void check_origin(obufs *b, int t, const char *what)
{
    for (int r = 2, k = 0; r < 6; r++)
        for (int c = 1; c < 4; c++, k++)
            CHECK(b->g_sub[k] == tval(t, R_D + r * 8 + c), "%s: subarray get element %d is %d", what, k, b->g_sub[k]);
    {
        static const int at[12] = {0, 1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 14};
        for (int k = 0, j = 0; k < 16; k++) {
            int want = (j < 12 && at[j] == k) ? tval(t, R_N + (j / 2) * 4 + j % 2) : -7;
            if (j < 12 && at[j] == k)
                j++;
            CHECK(b->g_idx[k] == want, "%s: vector->indexed get: origin element %d is %d, want %d", what, k, b->g_idx[k],
                  want);
        }
    }
    {
        static const int at[4] = {0, 5, 6, 7}, from[4] = {27, 28, 35, 36};
        for (int k = 0, j = 0; k < 8; k++) {
            int want = (j < 4 && at[j] == k) ? tval(t, R_G + from[j]) : -7;
            if (j < 4 && at[j] == k)
                j++;
            CHECK(b->ga_res[k] == want, "%s: get_accumulate result element %d is %d, want %d", what, k, b->ga_res[k], want);
        }
    }
    for (int k = 0; k < 4096; k++)
        CHECK(b->g_long[k] == tval(t, R_M + 3 * k), "%s: long vector get element %d is %d", what, k, b->g_long[k]);
    nchecks += 4;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2, "needs at least 2 processes");
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    types T;
    make_types(&T);
    obufs b;
    b.s = malloc(NS * sizeof(int));
    b.sd = malloc(16 * sizeof(double));
    b.sp = malloc(8 * sizeof(int2));
    b.g_sub = malloc(12 * sizeof(int));
    b.g_idx = malloc(16 * sizeof(int));
    b.ga_res = malloc(8 * sizeof(int));
    b.g_long = malloc(4096 * sizeof(int));
    for (int i = 0; i < NS; i++)
        b.s[i] = sval(rank, i);
    for (int k = 0; k < 16; k++)
        b.sd[k] = sdval(rank, k);
    for (int k = 0; k < 8; k++)
        b.sp[k] = spval(rank, k);
    int *exp = malloc(WN * sizeof(int));
    expect(exp, rank, left);
    static const char *const sync[3] = {"fence", "pscw", "lock_all"};
    double t0 = MPI_Wtime();
    for (int k = 0; k < RMA_NKINDS; k++) {
        rma_win w;
        rma_open(&w, k, WN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD);
        CHECK_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
        int *mine = (int *)w.base;
        for (int m = 0; m < 3; m++) {
            char what[64];
            snprintf(what, sizeof what, "%s, %s", rma_kind_name[k], sync[m]);
            rma_local_begin(&w);
            init(mine, rank);
            rma_local_end(&w);
            for (int i = 0; i < 16; i++)
                b.g_idx[i] = -7;
            for (int i = 0; i < 8; i++)
                b.ga_res[i] = -7;
            memset(b.g_sub, 0, 12 * sizeof(int));
            memset(b.g_long, 0, 4096 * sizeof(int));
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
            if (m == 0) {
                CHECK_OK(MPI_Win_fence(0, w.win));
                issue(&w, right, &T, &b);
                CHECK_OK(MPI_Win_fence(0, w.win));
            } else if (m == 1) {
                MPI_Group wg, gl, gr;
                CHECK_OK(MPI_Win_get_group(w.win, &wg));
                CHECK_OK(MPI_Group_incl(wg, 1, &left, &gl));
                CHECK_OK(MPI_Group_incl(wg, 1, &right, &gr));
                CHECK_OK(MPI_Win_post(gl, 0, w.win));
                CHECK_OK(MPI_Win_start(gr, 0, w.win));
                issue(&w, right, &T, &b);
                CHECK_OK(MPI_Win_complete(w.win));
                CHECK_OK(MPI_Win_wait(w.win));
                MPI_Group_free(&wg);
                MPI_Group_free(&gl);
                MPI_Group_free(&gr);
            } else {
                CHECK_OK(MPI_Win_lock_all(0, w.win));
                issue(&w, right, &T, &b);
                CHECK_OK(MPI_Win_flush_all(w.win));
                CHECK_OK(MPI_Win_unlock_all(w.win));
                CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
                CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, w.win));
            }
            for (int i = 0; i < WN; i++)
                CHECK(mine[i] == exp[i], "%s: target int %d is %d, want %d (init %d)", what, i, mine[i], exp[i],
                      tval(rank, i));
            nchecks++;
            if (m == 2)
                CHECK_OK(MPI_Win_unlock(rank, w.win));
            check_origin(&b, right, what);
            CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        }
        rma_close(&w);
    }
    free_types(&T);
    long total;
    MPI_Reduce(&nchecks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("rma_dtypes: np %d, %d window kinds x 3 sync modes, %ld checks passed (%.2f s)\n", size, RMA_NKINDS, total,
               MPI_Wtime() - t0);
    free(exp);
    free(b.s);
    free(b.sd);
    free(b.sp);
    free(b.g_sub);
    free(b.g_idx);
    free(b.ga_res);
    free(b.g_long);
    CHECK_OK(MPI_Finalize());
    return 0;
}

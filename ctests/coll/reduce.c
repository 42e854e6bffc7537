/* reduce: MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter, MPI_Reduce_scatter_block,
 * MPI_Scan and MPI_Exscan in every form (blocking, nonblocking completed by Wait and by
 * Test, persistent started twice with new data; int and MPI_Count bindings), with and
 * without MPI_IN_PLACE, for counts 0 to 100000 (past the 2 KiB switch to
 * Rabenseifner's allreduce, and rendezvous), with MPI_SUM on int, double and a vector
 * type with gaps, a commutative user op, a non-commutative user op (2x2 matrix
 * product, on a contiguous and a gapped type) whose result shows the rank order, and
 * MPI_MINLOC/MPI_MAXLOC on pair types. Results are checked against serial
 * references; receive buffers that must not change are checked too. */
#include "coll_util.h"

static int bad_calls; /* user functions called with an unexpected datatype */

static void matmul_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    const lay_t *L = *dt == lays[L_MAT].type ? &lays[L_MAT] : *dt == lays[L_MATGAP].type ? &lays[L_MATGAP] : NULL;
    if (L == NULL) {
        bad_calls++;
        return;
    }
    double *a = invec, *b = inoutvec;
    for (int k = 0; k < *len; k++, a += L->ext, b += L->ext) {
        const int *o = L->offs;
        double r[4] = {a[o[0]] * b[o[0]] + a[o[1]] * b[o[2]], a[o[0]] * b[o[1]] + a[o[1]] * b[o[3]],
                       a[o[2]] * b[o[0]] + a[o[3]] * b[o[2]], a[o[2]] * b[o[1]] + a[o[3]] * b[o[3]]};
        for (int j = 0; j < 4; j++)
            b[o[j]] = r[j];
    }
}

static void usum_fn(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    if (*dt != MPI_INT) {
        bad_calls++;
        return;
    }
    int *a = invec, *b = inoutvec;
    for (int k = 0; k < *len; k++)
        b[k] += a[k];
}

/* An operation under test with its serial reference. */
typedef struct {
    const char *name;
    MPI_Op op;
    int lay;
    int matrix; /* reference is the matrix product, else the sum */
    int big;    /* also try 100000 elements */
} opcase_t;

static opcase_t ops[6];
static int nops;

/* fold computes element i's reference over ranks lo..hi-1 at iteration it. */
static void fold(const opcase_t *oc, int it, int lo, int hi, long i, double out[4])
{
    const lay_t *L = &lays[oc->lay];
    for (int r = lo; r < hi; r++) {
        double x[4];
        for (int j = 0; j < L->k; j++)
            x[j] = (double)val(it, r, i, j);
        if (r == lo) {
            memcpy(out, x, sizeof x);
        } else if (oc->matrix) {
            double t[4] = {out[0] * x[0] + out[1] * x[2], out[0] * x[1] + out[1] * x[3],
                           out[2] * x[0] + out[3] * x[2], out[2] * x[1] + out[3] * x[3]};
            memcpy(out, t, sizeof t);
        } else {
            for (int j = 0; j < L->k; j++)
                out[j] += x[j];
        }
    }
}

/* setfold writes element i's reference over lo..hi-1 as element di of want. */
static void setfold(const opcase_t *oc, void *want, long di, int it, int lo, int hi, long i)
{
    const lay_t *L = &lays[oc->lay];
    double v[4];
    fold(oc, it, lo, hi, i, v);
    for (int j = 0; j < L->k; j++)
        lset(L, want, di, j, (long)v[j]);
}

static const long counts[] = {0, 1, 7, 600, 100000};
enum { NCOUNTS = 5 };

/* For each (op, count, mode) the body runs twice, with the int and the MPI_Count
 * binding; in-place alternates so that each mode sees both with each binding. The
 * largest count runs only in two modes, with the int binding. */
#define FOR_CASES(oc, L, n, mode, lc, inplace)                                                  \
    for (int oi_ = 0; oi_ < nops; oi_++)                                                        \
        for (int ci_ = 0; ci_ < NCOUNTS; ci_++)                                                 \
            for (int mode = 0; mode < NMODES; mode++)                                           \
                for (int lc = 0; lc < 2; lc++)                                                  \
                    for (int inplace = (mode + lc) % 2, once_ = 1; once_; once_ = 0)            \
                        for (const opcase_t *oc = &ops[oi_]; oc; oc = NULL)                     \
                            for (const lay_t *L = &lays[oc->lay]; L; L = NULL)                  \
                                for (long n = counts[ci_]; n >= 0; n = -1)                      \
                                    if (n < 100000 || (oc->big && !lc && (mode == M_BLOCK || mode == M_PERSIST)))

static void test_reduce(void)
{
    FOR_CASES(oc, L, n, mode, lc, inplace)
    {
        for (int rk = (mode + lc) % nroots(g_size), once = 1; once; once = 0) {
            int root = root_at(rk, g_size);
            void *sbuf = lalloc(L, n), *rbuf = lalloc(L, n), *want = lalloc(L, n), *mine = lalloc(L, n);
            int ip = inplace && g_rank == root;
            MPI_Request req = MPI_REQUEST_NULL;
            for (int it = 0; it < iters(mode); it++) {
                lpoison(L, mine, n);
                fillc(L, mine, n, it, g_rank);
                memcpy(sbuf, mine, (n + 1) * L->ext * bsize(L));
                lpoison(L, rbuf, n);
                if (ip)
                    memcpy(rbuf, mine, (n + 1) * L->ext * bsize(L));
                void *sp = ip ? MPI_IN_PLACE : sbuf;
                if (lc)
                    RUN(mode, it, req, MPI_Reduce_c(sp, rbuf, n, L->type, oc->op, root, MPI_COMM_WORLD),
                        MPI_Ireduce_c(sp, rbuf, n, L->type, oc->op, root, MPI_COMM_WORLD, &req),
                        MPI_Reduce_init_c(sp, rbuf, n, L->type, oc->op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                else
                    RUN(mode, it, req, MPI_Reduce(sp, rbuf, (int)n, L->type, oc->op, root, MPI_COMM_WORLD),
                        MPI_Ireduce(sp, rbuf, (int)n, L->type, oc->op, root, MPI_COMM_WORLD, &req),
                        MPI_Reduce_init(sp, rbuf, (int)n, L->type, oc->op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                lpoison(L, want, n);
                if (g_rank == root)
                    for (long i = 0; i < n; i++)
                        setfold(oc, want, i, it, 0, g_size, i);
                CHECK_BUF(L, rbuf, want, n, "%s reduce%s %s count %ld root %d inplace %d it %d", mode_names[mode],
                          lc ? "_c" : "", oc->name, n, root, inplace, it);
                if (!ip)
                    CHECK_BUF(L, sbuf, mine, n, "%s reduce changed its send buffer", mode_names[mode]);
            }
            DONE(mode, req);
            free(sbuf), free(rbuf), free(want), free(mine);
        }
    }
}

static void test_allreduce(void)
{
    FOR_CASES(oc, L, n, mode, lc, inplace)
    {
        void *sbuf = lalloc(L, n), *rbuf = lalloc(L, n), *want = lalloc(L, n), *mine = lalloc(L, n);
        MPI_Request req = MPI_REQUEST_NULL;
        for (int it = 0; it < iters(mode); it++) {
            lpoison(L, mine, n);
            fillc(L, mine, n, it, g_rank);
            memcpy(sbuf, mine, (n + 1) * L->ext * bsize(L));
            lpoison(L, rbuf, n);
            if (inplace)
                memcpy(rbuf, mine, (n + 1) * L->ext * bsize(L));
            void *sp = inplace ? MPI_IN_PLACE : sbuf;
            if (lc)
                RUN(mode, it, req, MPI_Allreduce_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Iallreduce_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Allreduce_init_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            else
                RUN(mode, it, req, MPI_Allreduce(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Iallreduce(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Allreduce_init(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            lpoison(L, want, n);
            for (long i = 0; i < n; i++)
                setfold(oc, want, i, it, 0, g_size, i);
            CHECK_BUF(L, rbuf, want, n, "%s allreduce%s %s count %ld inplace %d it %d", mode_names[mode],
                      lc ? "_c" : "", oc->name, n, inplace, it);
            if (!inplace)
                CHECK_BUF(L, sbuf, mine, n, "%s allreduce changed its send buffer", mode_names[mode]);
        }
        DONE(mode, req);
        free(sbuf), free(rbuf), free(want), free(mine);
    }
}

/* test_reduce_scatter covers MPI_Reduce_scatter_block (v = 0: count each) and
 * MPI_Reduce_scatter (v = 1: uneven counts, some zero). */
static void test_reduce_scatter(int v)
{
    FOR_CASES(oc, L, n, mode, lc, inplace)
    {
        long each = n == 100000 ? n / g_size : n;
        int cnt[64];
        MPI_Count cnt_c[64];
        long total = 0, mine_at = 0;
        for (int i = 0; i < g_size; i++) {
            cnt[i] = v ? (int)(each + i % 3 > 1 ? each + i % 3 - 1 : 0) : (int)each;
            cnt_c[i] = cnt[i];
            if (i < g_rank)
                mine_at += cnt[i];
            total += cnt[i];
        }
        long my = cnt[g_rank];
        void *sbuf = lalloc(L, total), *rbuf = lalloc(L, total), *want = lalloc(L, total), *mine = lalloc(L, total);
        MPI_Request req = MPI_REQUEST_NULL;
        for (int it = 0; it < iters(mode); it++) {
            lpoison(L, mine, total);
            fillc(L, mine, total, it, g_rank);
            memcpy(sbuf, mine, (total + 1) * L->ext * bsize(L));
            lpoison(L, rbuf, total);
            if (inplace)
                memcpy(rbuf, mine, (total + 1) * L->ext * bsize(L));
            void *sp = inplace ? MPI_IN_PLACE : sbuf;
            if (v && lc)
                RUN(mode, it, req, MPI_Reduce_scatter_c(sp, rbuf, cnt_c, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Ireduce_scatter_c(sp, rbuf, cnt_c, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Reduce_scatter_init_c(sp, rbuf, cnt_c, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            else if (v)
                RUN(mode, it, req, MPI_Reduce_scatter(sp, rbuf, cnt, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Ireduce_scatter(sp, rbuf, cnt, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Reduce_scatter_init(sp, rbuf, cnt, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            else if (lc)
                RUN(mode, it, req, MPI_Reduce_scatter_block_c(sp, rbuf, each, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Ireduce_scatter_block_c(sp, rbuf, each, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Reduce_scatter_block_init_c(sp, rbuf, each, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            else
                RUN(mode, it, req, MPI_Reduce_scatter_block(sp, rbuf, (int)each, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Ireduce_scatter_block(sp, rbuf, (int)each, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Reduce_scatter_block_init(sp, rbuf, (int)each, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            if (inplace) {
                /* Only the first my elements are defined: compare those. */
                for (long i = 0; i < my; i++) {
                    double w[4];
                    fold(oc, it, 0, g_size, mine_at + i, w);
                    for (int j = 0; j < L->k; j++)
                        CHECK(lget(L, rbuf, i, j) == w[j], "%s in-place reduce_scatter%s%s %s count %ld: element %ld value %d is %g, want %g",
                              mode_names[mode], v ? "" : "_block", lc ? "_c" : "", oc->name, each, i, j, lget(L, rbuf, i, j), w[j]);
                }
            } else {
                lpoison(L, want, total);
                for (long i = 0; i < my; i++)
                    setfold(oc, want, i, it, 0, g_size, mine_at + i);
                CHECK_BUF(L, rbuf, want, total, "%s reduce_scatter%s%s %s count %ld it %d", mode_names[mode],
                          v ? "" : "_block", lc ? "_c" : "", oc->name, each, it);
                CHECK_BUF(L, sbuf, mine, total, "%s reduce_scatter changed its send buffer", mode_names[mode]);
            }
        }
        DONE(mode, req);
        free(sbuf), free(rbuf), free(want), free(mine);
    }
}

static void test_scan(int exclusive)
{
    FOR_CASES(oc, L, n, mode, lc, inplace)
    {
        void *sbuf = lalloc(L, n), *rbuf = lalloc(L, n), *want = lalloc(L, n), *mine = lalloc(L, n);
        MPI_Request req = MPI_REQUEST_NULL;
        for (int it = 0; it < iters(mode); it++) {
            lpoison(L, mine, n);
            fillc(L, mine, n, it, g_rank);
            memcpy(sbuf, mine, (n + 1) * L->ext * bsize(L));
            lpoison(L, rbuf, n);
            if (inplace)
                memcpy(rbuf, mine, (n + 1) * L->ext * bsize(L));
            void *sp = inplace ? MPI_IN_PLACE : sbuf;
            if (exclusive && lc)
                RUN(mode, it, req, MPI_Exscan_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Iexscan_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Exscan_init_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            else if (exclusive)
                RUN(mode, it, req, MPI_Exscan(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Iexscan(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Exscan_init(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            else if (lc)
                RUN(mode, it, req, MPI_Scan_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Iscan_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Scan_init_c(sp, rbuf, n, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            else
                RUN(mode, it, req, MPI_Scan(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD),
                    MPI_Iscan(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD, &req),
                    MPI_Scan_init(sp, rbuf, (int)n, L->type, oc->op, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            if (!(exclusive && g_rank == 0)) { /* MPI_Exscan leaves rank 0's result undefined */
                lpoison(L, want, n);
                for (long i = 0; i < n; i++)
                    setfold(oc, want, i, it, 0, exclusive ? g_rank : g_rank + 1, i);
                CHECK_BUF(L, rbuf, want, n, "%s %s%s %s count %ld inplace %d it %d", mode_names[mode],
                          exclusive ? "exscan" : "scan", lc ? "_c" : "", oc->name, n, inplace, it);
            }
            if (!inplace)
                CHECK_BUF(L, sbuf, mine, n, "%s scan changed its send buffer", mode_names[mode]);
        }
        DONE(mode, req);
        free(sbuf), free(rbuf), free(want), free(mine);
    }
}

/* MPI_MINLOC and MPI_MAXLOC on MPI_DOUBLE_INT and MPI_2INT, with ties (the lower index
 * wins), through Reduce, Allreduce, Scan and Reduce_scatter_block. */
typedef struct {
    double v;
    int i;
} dint_t;
typedef struct {
    int v;
    int i;
} iint_t;

static int pv(int rank, long e) { return (int)((rank * 5 + e * 3) % 4); } /* many ties */

static void test_loc(void)
{
    const long n = 600;
    dint_t *ds = malloc(n * g_size * sizeof *ds), *dr = malloc(n * g_size * sizeof *dr);
    iint_t *is = malloc(n * g_size * sizeof *is), *ir = malloc(n * g_size * sizeof *ir);
    for (int maxloc = 0; maxloc < 2; maxloc++) {
        MPI_Op op = maxloc ? MPI_MAXLOC : MPI_MINLOC;
        for (int mode = 0; mode < NMODES; mode++) {
            for (int coll = 0; coll < 4; coll++) { /* reduce, allreduce, scan, reduce_scatter_block */
                MPI_Request rq[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
                for (int it = 0; it < iters(mode); it++) {
                    long total = coll == 3 ? n * g_size : n;
                    for (long e = 0; e < total; e++) {
                        ds[e] = (dint_t){pv(g_rank, e) + it, g_rank * 10 + it};
                        is[e] = (iint_t){pv(g_rank, e) - it, g_rank};
                        dr[e] = (dint_t){-1, -1};
                        ir[e] = (iint_t){-1, -1};
                    }
                    int root = g_size - 1;
                    switch (coll) {
                    case 0:
                        RUN(mode, it, rq[0], MPI_Reduce(ds, dr, n, MPI_DOUBLE_INT, op, root, MPI_COMM_WORLD),
                            MPI_Ireduce(ds, dr, n, MPI_DOUBLE_INT, op, root, MPI_COMM_WORLD, &rq[0]),
                            MPI_Reduce_init(ds, dr, n, MPI_DOUBLE_INT, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
                        RUN(mode, it, rq[1], MPI_Reduce(is, ir, n, MPI_2INT, op, root, MPI_COMM_WORLD),
                            MPI_Ireduce(is, ir, n, MPI_2INT, op, root, MPI_COMM_WORLD, &rq[1]),
                            MPI_Reduce_init(is, ir, n, MPI_2INT, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
                        break;
                    case 1:
                        RUN(mode, it, rq[0], MPI_Allreduce(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD),
                            MPI_Iallreduce(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD, &rq[0]),
                            MPI_Allreduce_init(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
                        RUN(mode, it, rq[1], MPI_Allreduce(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD),
                            MPI_Iallreduce(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD, &rq[1]),
                            MPI_Allreduce_init(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
                        break;
                    case 2:
                        RUN(mode, it, rq[0], MPI_Scan(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD),
                            MPI_Iscan(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD, &rq[0]),
                            MPI_Scan_init(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
                        RUN(mode, it, rq[1], MPI_Scan(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD),
                            MPI_Iscan(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD, &rq[1]),
                            MPI_Scan_init(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
                        break;
                    default:
                        RUN(mode, it, rq[0], MPI_Reduce_scatter_block(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD),
                            MPI_Ireduce_scatter_block(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD, &rq[0]),
                            MPI_Reduce_scatter_block_init(ds, dr, n, MPI_DOUBLE_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[0]));
                        RUN(mode, it, rq[1], MPI_Reduce_scatter_block(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD),
                            MPI_Ireduce_scatter_block(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD, &rq[1]),
                            MPI_Reduce_scatter_block_init(is, ir, n, MPI_2INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[1]));
                    }
                    int hi = coll == 2 ? g_rank + 1 : g_size;
                    if (coll == 0 && g_rank != root) {
                        CHECK(dr[0].i == -1 && ir[0].i == -1, "reduce wrote at a non-root");
                        continue;
                    }
                    for (long e = 0; e < n; e++) {
                        long src = coll == 3 ? g_rank * n + e : e;
                        dint_t dw = {0, 0};
                        iint_t iw = {0, 0};
                        for (int r = 0; r < hi; r++) {
                            dint_t d = {pv(r, src) + it, r * 10 + it};
                            iint_t x = {pv(r, src) - it, r};
                            int better = maxloc ? d.v > dw.v : d.v < dw.v;
                            if (r == 0 || better || (d.v == dw.v && d.i < dw.i))
                                dw = d;
                            better = maxloc ? x.v > iw.v : x.v < iw.v;
                            if (r == 0 || better || (x.v == iw.v && x.i < iw.i))
                                iw = x;
                        }
                        CHECK(dr[e].v == dw.v && dr[e].i == dw.i, "%s %s coll %d element %ld: double_int (%g,%d), want (%g,%d)",
                              mode_names[mode], maxloc ? "maxloc" : "minloc", coll, e, dr[e].v, dr[e].i, dw.v, dw.i);
                        CHECK(ir[e].v == iw.v && ir[e].i == iw.i, "%s %s coll %d element %ld: 2int (%d,%d), want (%d,%d)",
                              mode_names[mode], maxloc ? "maxloc" : "minloc", coll, e, ir[e].v, ir[e].i, iw.v, iw.i);
                    }
                }
                DONE(mode, rq[0]);
                DONE(mode, rq[1]);
            }
        }
    }
    free(ds), free(dr), free(is), free(ir);
}

int main(int argc, char **argv)
{
    coll_init(&argc, &argv);
    MPI_Op matmul, usum;
    CHECK_OK(MPI_Op_create(matmul_fn, 0, &matmul));
    CHECK_OK(MPI_Op_create(usum_fn, 1, &usum));
    ops[nops++] = (opcase_t){"sum int", MPI_SUM, L_INT, 0, 1};
    ops[nops++] = (opcase_t){"sum double", MPI_SUM, L_DOUBLE, 0, 0};
    ops[nops++] = (opcase_t){"sum vector", MPI_SUM, L_VEC, 0, 0};
    ops[nops++] = (opcase_t){"user sum", usum, L_INT, 0, 0};
    ops[nops++] = (opcase_t){"matmul", matmul, L_MAT, 1, 1};
    ops[nops++] = (opcase_t){"gapped matmul", matmul, L_MATGAP, 1, 0};
    const char *only = argc > 1 ? argv[1] : "";
    if (!*only || !strcmp(only, "reduce"))
        test_reduce();
    if (!*only || !strcmp(only, "allreduce"))
        test_allreduce();
    if (!*only || !strcmp(only, "reduce_scatter")) {
        test_reduce_scatter(0);
        test_reduce_scatter(1);
    }
    if (!*only || !strcmp(only, "scan")) {
        test_scan(0);
        test_scan(1);
    }
    if (!*only || !strcmp(only, "loc"))
        test_loc();
    CHECK(bad_calls == 0, "user functions were called %d times with an unexpected datatype", bad_calls);
    CHECK_OK(MPI_Op_free(&matmul));
    CHECK_OK(MPI_Op_free(&usum));
    lays_free();
    CHECK_OK(MPI_Finalize());
    return 0;
}

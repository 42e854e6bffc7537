/* gather: MPI_Gather(v), MPI_Scatter(v) and MPI_Allgather(v) in every form (blocking,
 * nonblocking completed by Wait and by Test, persistent started twice with new data;
 * int and MPI_Count bindings) for counts 0 to 100000 on MPI_INT, MPI_DOUBLE and a
 * vector type with gaps; uneven counts (some zero) and blocks placed in reverse order
 * with gaps for the v forms; every root position; MPI_IN_PLACE with the arguments it
 * makes insignificant set to 0/MPI_DATATYPE_NULL, and the arguments significant only
 * at the root likewise at the other ranks; send and receive types that differ but
 * match in type signature. Buffers and gaps that must not change are checked. */
#include "coll_util.h"

static const long counts[] = {0, 1, 7, 600, 100000};
enum { NCOUNTS = 5 };

/* blocks fills per-rank counts and displacements (in elements) for count elements
 * each, or for the v forms uneven counts in reverse rank order with a one-element gap
 * after each block; it returns the receive buffer's size in elements. */
static long blocks(int v, long count, int *cnt, int *dsp, MPI_Count *cnt_c, MPI_Aint *dsp_c)
{
    long off = 0;
    for (int i = v ? g_size - 1 : 0; v ? i >= 0 : i < g_size; i += v ? -1 : 1) {
        cnt[i] = v ? (int)(count + i % 3 > 1 ? count + i % 3 - 1 : 0) : (int)count;
        dsp[i] = (int)off;
        off += cnt[i] + v;
    }
    for (int i = 0; i < g_size; i++)
        cnt_c[i] = cnt[i], dsp_c[i] = dsp[i];
    return off;
}

/* Cases: each layout and count, each mode, each binding; in-place and the root
 * alternate. The largest count runs with MPI_INT only, in two modes. */
#define FOR_CASES(L, n, mode, lc, inplace, root)                                                \
    for (int li_ = 0; li_ < 3; li_++)                                                           \
        for (int ci_ = 0; ci_ < NCOUNTS; ci_++)                                                 \
            for (int mode = 0; mode < NMODES; mode++)                                           \
                for (int lc = 0; lc < 2; lc++)                                                  \
                    for (int inplace = (mode + lc + li_) % 2, once_ = 1; once_; once_ = 0)      \
                        for (int root = root_at((mode + lc + ci_) % nroots(g_size), g_size), o2_ = 1; o2_; o2_ = 0) \
                            for (const lay_t *L = &lays[(int[]){L_INT, L_DOUBLE, L_VEC}[li_]]; L; L = NULL) \
                                for (long n = counts[ci_]; n >= 0; n = -1)                      \
                                    if (n < 100000 || (li_ == 0 && !lc && (mode == M_BLOCK || mode == M_PERSIST)))

static void test_gather(int v)
{
    int cnt[64], dsp[64];
    MPI_Count cnt_c[64];
    MPI_Aint dsp_c[64];
    FOR_CASES(L, n, mode, lc, inplace, root)
    {
        long total = blocks(v, n, cnt, dsp, cnt_c, dsp_c);
        int me = g_rank, isroot = me == root, ip = inplace && isroot;
        void *sbuf = lalloc(L, cnt[me]), *rbuf = lalloc(L, total), *want = lalloc(L, total);
        MPI_Request req = MPI_REQUEST_NULL;
        for (int it = 0; it < iters(mode); it++) {
            lpoison(L, sbuf, cnt[me]);
            fillc(L, sbuf, cnt[me], it, me);
            lpoison(L, rbuf, total);
            lpoison(L, want, total);
            for (int i = 0; i < g_size; i++) {
                void *b = lnew(L, cnt[i]);
                fillc(L, b, cnt[i], it, i);
                for (long k = 0; k < cnt[i]; k++)
                    lcopy(L, want, dsp[i] + k, b, k);
                free(b);
            }
            if (ip)
                for (long k = 0; k < cnt[me]; k++)
                    lcopy(L, rbuf, dsp[me] + k, sbuf, k);
            /* Insignificant arguments get values that would be wrong if used. */
            void *sp = ip ? MPI_IN_PLACE : sbuf;
            int sc = ip ? 0 : cnt[me];
            MPI_Datatype st = ip ? MPI_DATATYPE_NULL : L->type;
            void *rp = isroot || !lc ? rbuf : NULL;
            MPI_Datatype rt = isroot || !lc ? L->type : MPI_DATATYPE_NULL;
            int rc = isroot ? (int)n : 0;
            const int *rcnt = isroot ? cnt : NULL, *rdsp = isroot ? dsp : NULL;
            const MPI_Count *rcnt_c = isroot ? cnt_c : NULL;
            const MPI_Aint *rdsp_c = isroot ? dsp_c : NULL;
            MPI_Comm w = MPI_COMM_WORLD;
            if (v && lc)
                RUN(mode, it, req, MPI_Gatherv_c(sp, sc, st, rp, rcnt_c, rdsp_c, rt, root, w),
                    MPI_Igatherv_c(sp, sc, st, rp, rcnt_c, rdsp_c, rt, root, w, &req),
                    MPI_Gatherv_init_c(sp, sc, st, rp, rcnt_c, rdsp_c, rt, root, w, MPI_INFO_NULL, &req));
            else if (v)
                RUN(mode, it, req, MPI_Gatherv(sp, sc, st, rp, rcnt, rdsp, rt, root, w),
                    MPI_Igatherv(sp, sc, st, rp, rcnt, rdsp, rt, root, w, &req),
                    MPI_Gatherv_init(sp, sc, st, rp, rcnt, rdsp, rt, root, w, MPI_INFO_NULL, &req));
            else if (lc)
                RUN(mode, it, req, MPI_Gather_c(sp, sc, st, rp, rc, rt, root, w),
                    MPI_Igather_c(sp, sc, st, rp, rc, rt, root, w, &req),
                    MPI_Gather_init_c(sp, sc, st, rp, rc, rt, root, w, MPI_INFO_NULL, &req));
            else
                RUN(mode, it, req, MPI_Gather(sp, sc, st, rp, rc, rt, root, w),
                    MPI_Igather(sp, sc, st, rp, rc, rt, root, w, &req),
                    MPI_Gather_init(sp, sc, st, rp, rc, rt, root, w, MPI_INFO_NULL, &req));
            if (!isroot)
                lpoison(L, want, total);
            CHECK_BUF(L, rbuf, want, total, "%s gather%s%s count %ld root %d inplace %d it %d", mode_names[mode],
                      v ? "v" : "", lc ? "_c" : "", n, root, inplace, it);
        }
        DONE(mode, req);
        free(sbuf), free(rbuf), free(want);
    }
}

static void test_scatter(int v)
{
    int cnt[64], dsp[64];
    MPI_Count cnt_c[64];
    MPI_Aint dsp_c[64];
    FOR_CASES(L, n, mode, lc, inplace, root)
    {
        long total = blocks(v, n, cnt, dsp, cnt_c, dsp_c);
        int me = g_rank, isroot = me == root, ip = inplace && isroot;
        void *sbuf = lalloc(L, total), *keep = lalloc(L, total), *rbuf = lalloc(L, cnt[me]), *want = lalloc(L, cnt[me]);
        MPI_Request req = MPI_REQUEST_NULL;
        for (int it = 0; it < iters(mode); it++) {
            /* The root's send buffer: element e is the root's contribution e. */
            lpoison(L, sbuf, total);
            fillc(L, sbuf, total, it, root);
            memcpy(keep, sbuf, (total + 1) * L->ext * bsize(L));
            lpoison(L, rbuf, cnt[me]);
            lpoison(L, want, cnt[me]);
            if (!ip)
                for (long k = 0; k < cnt[me]; k++)
                    lcopy(L, want, k, sbuf, dsp[me] + k);
            void *rp = ip ? MPI_IN_PLACE : rbuf;
            int rc = ip ? 0 : cnt[me];
            MPI_Datatype rt = ip ? MPI_DATATYPE_NULL : L->type;
            void *sp = isroot || !lc ? sbuf : NULL;
            MPI_Datatype st = isroot || !lc ? L->type : MPI_DATATYPE_NULL;
            int sc = isroot ? (int)n : 0;
            const int *scnt = isroot ? cnt : NULL, *sdsp = isroot ? dsp : NULL;
            const MPI_Count *scnt_c = isroot ? cnt_c : NULL;
            const MPI_Aint *sdsp_c = isroot ? dsp_c : NULL;
            MPI_Comm w = MPI_COMM_WORLD;
            if (v && lc)
                RUN(mode, it, req, MPI_Scatterv_c(sp, scnt_c, sdsp_c, st, rp, rc, rt, root, w),
                    MPI_Iscatterv_c(sp, scnt_c, sdsp_c, st, rp, rc, rt, root, w, &req),
                    MPI_Scatterv_init_c(sp, scnt_c, sdsp_c, st, rp, rc, rt, root, w, MPI_INFO_NULL, &req));
            else if (v)
                RUN(mode, it, req, MPI_Scatterv(sp, scnt, sdsp, st, rp, rc, rt, root, w),
                    MPI_Iscatterv(sp, scnt, sdsp, st, rp, rc, rt, root, w, &req),
                    MPI_Scatterv_init(sp, scnt, sdsp, st, rp, rc, rt, root, w, MPI_INFO_NULL, &req));
            else if (lc)
                RUN(mode, it, req, MPI_Scatter_c(sp, sc, st, rp, rc, rt, root, w),
                    MPI_Iscatter_c(sp, sc, st, rp, rc, rt, root, w, &req),
                    MPI_Scatter_init_c(sp, sc, st, rp, rc, rt, root, w, MPI_INFO_NULL, &req));
            else
                RUN(mode, it, req, MPI_Scatter(sp, sc, st, rp, rc, rt, root, w),
                    MPI_Iscatter(sp, sc, st, rp, rc, rt, root, w, &req),
                    MPI_Scatter_init(sp, sc, st, rp, rc, rt, root, w, MPI_INFO_NULL, &req));
            CHECK_BUF(L, rbuf, want, cnt[me], "%s scatter%s%s count %ld root %d inplace %d it %d", mode_names[mode],
                      v ? "v" : "", lc ? "_c" : "", n, root, inplace, it);
            CHECK_BUF(L, sbuf, keep, total, "%s scatter changed its send buffer", mode_names[mode]);
        }
        DONE(mode, req);
        free(sbuf), free(keep), free(rbuf), free(want);
    }
}

static void test_allgather(int v)
{
    int cnt[64], dsp[64];
    MPI_Count cnt_c[64];
    MPI_Aint dsp_c[64];
    FOR_CASES(L, n, mode, lc, inplace, root)
    {
        (void)root;
        long total = blocks(v, n, cnt, dsp, cnt_c, dsp_c);
        int me = g_rank;
        void *sbuf = lalloc(L, cnt[me]), *rbuf = lalloc(L, total), *want = lalloc(L, total);
        MPI_Request req = MPI_REQUEST_NULL;
        for (int it = 0; it < iters(mode); it++) {
            lpoison(L, sbuf, cnt[me]);
            fillc(L, sbuf, cnt[me], it, me);
            lpoison(L, rbuf, total);
            lpoison(L, want, total);
            for (int i = 0; i < g_size; i++) {
                void *b = lnew(L, cnt[i]);
                fillc(L, b, cnt[i], it, i);
                for (long k = 0; k < cnt[i]; k++)
                    lcopy(L, want, dsp[i] + k, b, k);
                free(b);
            }
            if (inplace)
                for (long k = 0; k < cnt[me]; k++)
                    lcopy(L, rbuf, dsp[me] + k, sbuf, k);
            void *sp = inplace ? MPI_IN_PLACE : sbuf;
            int sc = inplace ? 0 : cnt[me];
            MPI_Datatype st = inplace ? MPI_DATATYPE_NULL : L->type;
            MPI_Comm w = MPI_COMM_WORLD;
            if (v && lc)
                RUN(mode, it, req, MPI_Allgatherv_c(sp, sc, st, rbuf, cnt_c, dsp_c, L->type, w),
                    MPI_Iallgatherv_c(sp, sc, st, rbuf, cnt_c, dsp_c, L->type, w, &req),
                    MPI_Allgatherv_init_c(sp, sc, st, rbuf, cnt_c, dsp_c, L->type, w, MPI_INFO_NULL, &req));
            else if (v)
                RUN(mode, it, req, MPI_Allgatherv(sp, sc, st, rbuf, cnt, dsp, L->type, w),
                    MPI_Iallgatherv(sp, sc, st, rbuf, cnt, dsp, L->type, w, &req),
                    MPI_Allgatherv_init(sp, sc, st, rbuf, cnt, dsp, L->type, w, MPI_INFO_NULL, &req));
            else if (lc)
                RUN(mode, it, req, MPI_Allgather_c(sp, sc, st, rbuf, n, L->type, w),
                    MPI_Iallgather_c(sp, sc, st, rbuf, n, L->type, w, &req),
                    MPI_Allgather_init_c(sp, sc, st, rbuf, n, L->type, w, MPI_INFO_NULL, &req));
            else
                RUN(mode, it, req, MPI_Allgather(sp, sc, st, rbuf, (int)n, L->type, w),
                    MPI_Iallgather(sp, sc, st, rbuf, (int)n, L->type, w, &req),
                    MPI_Allgather_init(sp, sc, st, rbuf, (int)n, L->type, w, MPI_INFO_NULL, &req));
            CHECK_BUF(L, rbuf, want, total, "%s allgather%s%s count %ld inplace %d it %d", mode_names[mode],
                      v ? "v" : "", lc ? "_c" : "", n, inplace, it);
        }
        DONE(mode, req);
        free(sbuf), free(rbuf), free(want);
    }
}

/* Send and receive types may differ when their type signatures match: each rank
 * sends count vectors (two ints with a gap) and the others receive 2*count ints. */
static void test_mixed_types(void)
{
    const lay_t *V = &lays[L_VEC], *I = &lays[L_INT];
    for (long n = 1; n <= 700; n += 699) {
        void *vb = lalloc(V, n), *ib = lalloc(I, 2 * n * g_size), *want = lalloc(I, 2 * n * g_size);
        lpoison(V, vb, n);
        fillc(V, vb, n, 3, g_rank);
        lpoison(I, want, 2 * n * g_size);
        for (int i = 0; i < g_size; i++)
            for (long e = 0; e < n; e++)
                for (int j = 0; j < 2; j++)
                    lset(I, want, i * 2 * n + 2 * e + j, 0, val(3, i, e, j));
        lpoison(I, ib, 2 * n * g_size);
        CHECK_OK(MPI_Allgather(vb, (int)n, V->type, ib, (int)(2 * n), MPI_INT, MPI_COMM_WORLD));
        CHECK_BUF(I, ib, want, 2 * n * g_size, "allgather vector -> int count %ld", n);
        int root = g_size - 1;
        lpoison(I, ib, 2 * n * g_size);
        CHECK_OK(MPI_Gather(vb, (int)n, V->type, ib, (int)(2 * n), MPI_INT, root, MPI_COMM_WORLD));
        if (g_rank != root)
            lpoison(I, want, 2 * n * g_size);
        CHECK_BUF(I, ib, want, 2 * n * g_size, "gather vector -> int count %ld", n);
        /* And back: the root scatters ints that arrive as vectors. */
        void *vr = lnew(V, n), *vw = lnew(V, n);
        for (int i = 0; i < g_size; i++)
            for (long e = 0; e < n; e++)
                for (int j = 0; j < 2; j++)
                    lset(I, ib, i * 2 * n + 2 * e + j, 0, val(4, i, e, j));
        fillc(V, vw, n, 4, g_rank);
        CHECK_OK(MPI_Scatter(ib, (int)(2 * n), MPI_INT, vr, (int)n, V->type, root, MPI_COMM_WORLD));
        CHECK_BUF(V, vr, vw, n, "scatter int -> vector count %ld", n);
        free(vb), free(ib), free(want), free(vr), free(vw);
    }
}

int main(int argc, char **argv)
{
    coll_init(&argc, &argv);
    const char *only = argc > 1 ? argv[1] : "";
    for (int v = 0; v < 2; v++) {
        if (!*only || !strcmp(only, "gather"))
            test_gather(v);
        if (!*only || !strcmp(only, "scatter"))
            test_scatter(v);
        if (!*only || !strcmp(only, "allgather"))
            test_allgather(v);
    }
    if (!*only || !strcmp(only, "mixed"))
        test_mixed_types();
    lays_free();
    CHECK_OK(MPI_Finalize());
    return 0;
}

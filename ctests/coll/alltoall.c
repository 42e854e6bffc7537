/* alltoall: MPI_Alltoall, MPI_Alltoallv and MPI_Alltoallw in every form (blocking,
 * nonblocking completed by Wait and by Test, persistent started twice with new data;
 * int and MPI_Count bindings) for counts 0 to 100000 on MPI_INT, MPI_DOUBLE and a
 * vector type with gaps; per-pair counts (some zero) and blocks in reverse order with
 * gaps for the v and w forms; per-peer datatypes for the w form, where a vector sent
 * arrives as two ints; MPI_IN_PLACE with the send arguments it makes insignificant set
 * to 0/NULL/MPI_DATATYPE_NULL. */
#include "coll_util.h"

static const long counts[] = {0, 1, 7, 600, 100000};
enum { NCOUNTS = 5 };

/* pv is value j of element e that src sends to dst at iteration it. */
static long pv(int it, int src, int dst, long e, int j)
{
    return (long)((it * 7 + 3) * (src + 1) + dst * 11 + (e % 1000) * 3 + j) % 97 - 40;
}

/* pairs returns how many elements src sends to dst: count for MPI_Alltoall, else
 * uneven (symmetric when sym, as MPI_IN_PLACE needs). */
static long pairs(int form, int sym, long count, int src, int dst)
{
    if (form == 0)
        return count;
    long m = count + (sym ? (src + dst) % 3 : (src + 2 * dst) % 3) - 1;
    return m > 0 ? m : 0;
}

/* side lays out one side of the exchange (peer p's block: cnt[p] elements at dsp[p]),
 * blocks in reverse peer order with a one-element gap for the v and w forms. */
static long side(int form, int sym, long count, int me, int sending, int *cnt, int *dsp, MPI_Count *cnt_c, MPI_Aint *dsp_c)
{
    long off = 0;
    for (int k = 0; k < g_size; k++) {
        int p = form ? g_size - 1 - k : k;
        cnt[p] = (int)(sending ? pairs(form, sym, count, me, p) : pairs(form, sym, count, p, me));
        dsp[p] = (int)off;
        off += cnt[p] + (form != 0);
    }
    for (int p = 0; p < g_size; p++)
        cnt_c[p] = cnt[p], dsp_c[p] = dsp[p];
    return off;
}

/* test_plain_v covers MPI_Alltoall (form 0) and MPI_Alltoallv (form 1). */
static void test_plain_v(int form)
{
    int scnt[64], sdsp[64], rcnt[64], rdsp[64];
    MPI_Count scnt_c[64], rcnt_c[64];
    MPI_Aint sdsp_c[64], rdsp_c[64];
    for (int li = 0; li < 3; li++) {
        const lay_t *L = &lays[(int[]){L_INT, L_DOUBLE, L_VEC}[li]];
        for (int ci = 0; ci < NCOUNTS; ci++) {
            long n = counts[ci];
            for (int mode = 0; mode < NMODES; mode++) {
                for (int lc = 0; lc < 2; lc++) {
                    if (n == 100000 && (li || lc || mode == M_WAIT || mode == M_TEST))
                        continue;
                    int inplace = (mode + lc + li) % 2, me = g_rank;
                    long stotal = side(form, inplace, n, me, 1, scnt, sdsp, scnt_c, sdsp_c);
                    long rtotal = side(form, inplace, n, me, 0, rcnt, rdsp, rcnt_c, rdsp_c);
                    void *sbuf = lalloc(L, stotal), *keep = lalloc(L, stotal), *rbuf = lalloc(L, rtotal),
                         *want = lalloc(L, rtotal);
                    MPI_Request req = MPI_REQUEST_NULL;
                    for (int it = 0; it < iters(mode); it++) {
                        lpoison(L, sbuf, stotal);
                        lpoison(L, rbuf, rtotal);
                        lpoison(L, want, rtotal);
                        for (int p = 0; p < g_size; p++) {
                            for (long e = 0; e < scnt[p]; e++)
                                for (int j = 0; j < L->k; j++)
                                    lset(L, sbuf, sdsp[p] + e, j, pv(it, me, p, e, j));
                            for (long e = 0; e < rcnt[p]; e++)
                                for (int j = 0; j < L->k; j++)
                                    lset(L, want, rdsp[p] + e, j, pv(it, p, me, e, j));
                        }
                        memcpy(keep, sbuf, (stotal + 1) * L->ext * bsize(L));
                        if (inplace)
                            memcpy(rbuf, sbuf, (stotal + 1) * L->ext * bsize(L));
                        void *sp = inplace ? MPI_IN_PLACE : sbuf;
                        MPI_Datatype st = inplace ? MPI_DATATYPE_NULL : L->type;
                        int sc = inplace ? 0 : (int)n;
                        const int *sn = inplace ? NULL : scnt, *sd = inplace ? NULL : sdsp;
                        const MPI_Count *sn_c = inplace ? NULL : scnt_c;
                        const MPI_Aint *sd_c = inplace ? NULL : sdsp_c;
                        MPI_Comm w = MPI_COMM_WORLD;
                        if (form && lc)
                            RUN(mode, it, req, MPI_Alltoallv_c(sp, sn_c, sd_c, st, rbuf, rcnt_c, rdsp_c, L->type, w),
                                MPI_Ialltoallv_c(sp, sn_c, sd_c, st, rbuf, rcnt_c, rdsp_c, L->type, w, &req),
                                MPI_Alltoallv_init_c(sp, sn_c, sd_c, st, rbuf, rcnt_c, rdsp_c, L->type, w, MPI_INFO_NULL, &req));
                        else if (form)
                            RUN(mode, it, req, MPI_Alltoallv(sp, sn, sd, st, rbuf, rcnt, rdsp, L->type, w),
                                MPI_Ialltoallv(sp, sn, sd, st, rbuf, rcnt, rdsp, L->type, w, &req),
                                MPI_Alltoallv_init(sp, sn, sd, st, rbuf, rcnt, rdsp, L->type, w, MPI_INFO_NULL, &req));
                        else if (lc)
                            RUN(mode, it, req, MPI_Alltoall_c(sp, sc, st, rbuf, n, L->type, w),
                                MPI_Ialltoall_c(sp, sc, st, rbuf, n, L->type, w, &req),
                                MPI_Alltoall_init_c(sp, sc, st, rbuf, n, L->type, w, MPI_INFO_NULL, &req));
                        else
                            RUN(mode, it, req, MPI_Alltoall(sp, sc, st, rbuf, (int)n, L->type, w),
                                MPI_Ialltoall(sp, sc, st, rbuf, (int)n, L->type, w, &req),
                                MPI_Alltoall_init(sp, sc, st, rbuf, (int)n, L->type, w, MPI_INFO_NULL, &req));
                        CHECK_BUF(L, rbuf, want, rtotal, "%s alltoall%s%s %s count %ld inplace %d it %d", mode_names[mode],
                                  form ? "v" : "", lc ? "_c" : "", L->name, n, inplace, it);
                        if (!inplace)
                            CHECK_BUF(L, sbuf, keep, stotal, "%s alltoall changed its send buffer", mode_names[mode]);
                    }
                    DONE(mode, req);
                    free(sbuf), free(keep), free(rbuf), free(want);
                }
            }
        }
    }
}

/* MPI_Alltoallw: the pair (src, dst) moves m ints, which the sender sends as m/2
 * vectors (two ints with a gap) when src+dst is odd and m ints otherwise; the receiver
 * takes them as ints, or as vectors when src+dst is divisible by 3. Buffers are int
 * arrays; displacements are in bytes. */
static void test_w(void)
{
    const lay_t *I = &lays[L_INT], *V = &lays[L_VEC];
    for (long n = 0; n <= 600; n = n ? n * 10 : 3) { /* 0, 3, 30, 300 ints-pairs */
        for (int mode = 0; mode < NMODES; mode++) {
            for (int lc = 0; lc < 2; lc++) {
                int inplace = (mode + lc) % 2, me = g_rank;
                int scnt[64], sdsp[64], rcnt[64], rdsp[64];
                MPI_Count scnt_c[64], rcnt_c[64];
                MPI_Aint sdsp_c[64], rdsp_c[64];
                MPI_Datatype sty[64], rty[64];
                /* m(src, dst) ints, an even number; in place all pairs use ints. */
                long soff = 0, roff = 0;
                for (int k = 0; k < g_size; k++) {
                    int p = g_size - 1 - k;
                    long ms = 2 * pairs(1, inplace, n, me, p), mr = 2 * pairs(1, inplace, n, p, me);
                    const lay_t *sl = !inplace && (me + p) % 2 ? V : I, *rl = !inplace && (p + me) % 3 == 0 ? V : I;
                    sty[p] = sl->type, rty[p] = rl->type;
                    scnt[p] = (int)(ms / sl->k), rcnt[p] = (int)(mr / rl->k);
                    sdsp[p] = (int)(soff * sizeof(int)), rdsp[p] = (int)(roff * sizeof(int));
                    soff += scnt[p] * sl->ext + 1, roff += rcnt[p] * rl->ext + 1;
                }
                if (inplace)
                    soff = roff;
                for (int p = 0; p < g_size; p++)
                    scnt_c[p] = scnt[p], sdsp_c[p] = sdsp[p], rcnt_c[p] = rcnt[p], rdsp_c[p] = rdsp[p];
                int *sbuf = lalloc(I, soff), *keep = lalloc(I, soff), *rbuf = lalloc(I, roff), *want = lalloc(I, roff);
                MPI_Request req = MPI_REQUEST_NULL;
                for (int it = 0; it < iters(mode); it++) {
                    lpoison(I, sbuf, soff);
                    lpoison(I, rbuf, roff);
                    lpoison(I, want, roff);
                    for (int p = 0; p < g_size; p++) {
                        const lay_t *sl = sty[p] == V->type ? V : I, *rl = rty[p] == V->type ? V : I;
                        for (long e = 0; e < scnt[p]; e++)
                            for (int j = 0; j < sl->k; j++)
                                lset(sl, sbuf + sdsp[p] / sizeof(int), e, j, pv(it, me, p, e * sl->k + j, 0));
                        for (long e = 0; e < rcnt[p]; e++)
                            for (int j = 0; j < rl->k; j++)
                                lset(rl, want + rdsp[p] / sizeof(int), e, j, pv(it, p, me, e * rl->k + j, 0));
                    }
                    memcpy(keep, sbuf, (soff + 1) * sizeof(int));
                    if (inplace)
                        memcpy(rbuf, sbuf, (soff + 1) * sizeof(int));
                    void *sp = inplace ? MPI_IN_PLACE : sbuf;
                    const int *sn = inplace ? NULL : scnt, *sd = inplace ? NULL : sdsp;
                    const MPI_Count *sn_c = inplace ? NULL : scnt_c;
                    const MPI_Aint *sd_c = inplace ? NULL : sdsp_c;
                    const MPI_Datatype *st = inplace ? NULL : sty;
                    MPI_Comm w = MPI_COMM_WORLD;
                    if (lc)
                        RUN(mode, it, req, MPI_Alltoallw_c(sp, sn_c, sd_c, st, rbuf, rcnt_c, rdsp_c, rty, w),
                            MPI_Ialltoallw_c(sp, sn_c, sd_c, st, rbuf, rcnt_c, rdsp_c, rty, w, &req),
                            MPI_Alltoallw_init_c(sp, sn_c, sd_c, st, rbuf, rcnt_c, rdsp_c, rty, w, MPI_INFO_NULL, &req));
                    else
                        RUN(mode, it, req, MPI_Alltoallw(sp, sn, sd, st, rbuf, rcnt, rdsp, rty, w),
                            MPI_Ialltoallw(sp, sn, sd, st, rbuf, rcnt, rdsp, rty, w, &req),
                            MPI_Alltoallw_init(sp, sn, sd, st, rbuf, rcnt, rdsp, rty, w, MPI_INFO_NULL, &req));
                    CHECK_BUF(I, rbuf, want, roff, "%s alltoallw%s count %ld inplace %d it %d", mode_names[mode],
                              lc ? "_c" : "", n, inplace, it);
                    if (!inplace)
                        CHECK_BUF(I, sbuf, keep, soff, "%s alltoallw changed its send buffer", mode_names[mode]);
                }
                DONE(mode, req);
                free(sbuf), free(keep), free(rbuf), free(want);
            }
        }
    }
}

int main(int argc, char **argv)
{
    coll_init(&argc, &argv);
    test_plain_v(0);
    test_plain_v(1);
    test_w();
    lays_free();
    CHECK_OK(MPI_Finalize());
    return 0;
}

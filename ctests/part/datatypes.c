/* datatypes: partitioned transfers with derived datatypes, checked element by
 * element: every basic element lands where the receive type map puts it, and the
 * memory the receive type skips keeps its sentinel. Partition p of a request starts
 * at buf + p * count * extent(datatype).
 *   A. strided send (MPI_Type_vector(16, 1, 2, MPI_INT) resized to 32 ints,
 *      8 partitions x 1) into contiguous ints (4 partitions x 32);
 *   B. contiguous ints (4 x 32) into every third int (MPI_INT resized to an extent of
 *      3 ints, 8 partitions x 16);
 *   C. MPI_Type_contiguous(3, MPI_INT) (6 partitions x 5) into
 *      MPI_Type_vector(2, 3, 5, MPI_INT) (5 partitions x 3), gaps of 2 ints;
 *   D. doubles on both sides derived: MPI_Type_vector(3, 1, 4, MPI_DOUBLE)
 *      (4 partitions x 2) into MPI_Type_indexed {2 at 0, 1 at 5} (2 partitions x 4).
 * Each pair runs every case in both directions; MPI_Parrived is polled per receive
 * partition and MPI_Get_count(status, receive type) must be partitions x count.
 * Argument: rounds per case (default 3). */
#include "part_util.h"

#define TAG 31

struct dcase {
    const char *name;
    int isdbl;
    int sp, sc, rp, rc;
    long n;                 /* basic elements in the message */
    long sspan, rspan;      /* basic elements the buffers span */
    long (*soff)(long k);   /* the k-th sent basic element's index in the send buffer */
    long (*roff)(long k);   /* ... and in the receive buffer */
    MPI_Datatype st, rt;
};

static long a_soff(long k) { return (k / 16) * 32 + (k % 16) * 2; }
static long id_off(long k) { return k; }
static long b_roff(long k) { return 3 * k; }
static long c_roff(long k)
{
    long w = k % 6;
    return 8 * (k / 6) + (w < 3 ? w : 5 + (w - 3));
}
static long d_soff(long k) { return 9 * (k / 3) + 4 * (k % 3); }
static long d_roff(long k)
{
    long w = k % 3;
    return 6 * (k / 3) + (w < 2 ? w : 5);
}

static double dval(int round, int src, long i) { return pval(round, src, i) + 0.25; }

static void run(struct dcase *c, int nrounds, int sender, int ci)
{
    int peer = pair_peer();
    size_t esz = c->isdbl ? sizeof(double) : sizeof(int);
    long span = sender ? c->sspan : c->rspan;
    char *buf = malloc(span * esz);
    char *mark = calloc(span, 1);
    MPI_Request req;
    MPI_Status st;
    if (peer == MPI_PROC_NULL) {
        free(buf);
        free(mark);
        return;
    }
    if (sender)
        CHECK_OK(MPI_Psend_init(buf, c->sp, c->sc, c->st, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    else
        CHECK_OK(MPI_Precv_init(buf, c->rp, c->rc, c->rt, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    if (!sender)
        for (long k = 0; k < c->n; k++) {
            CHECK(c->roff(k) < span, "%s: receive offset %ld past the buffer", c->name, c->roff(k));
            mark[c->roff(k)] = 1;
        }
    for (int r = 0; r < nrounds; r++) {
        int rr = r + 10 * ci;
        if (sender) {
            /* Values follow the message order k; the rest of the buffer holds junk
             * that must not travel. */
            for (long i = 0; i < span; i++) {
                if (c->isdbl)
                    ((double *)buf)[i] = -1e9 - i;
                else
                    ((int *)buf)[i] = -1000000 - (int)i;
            }
            for (long k = 0; k < c->n; k++) {
                if (c->isdbl)
                    ((double *)buf)[c->soff(k)] = dval(rr, rank, k);
                else
                    ((int *)buf)[c->soff(k)] = pval(rr, rank, k);
            }
            CHECK_OK(MPI_Start(&req));
            for (int p = c->sp - 1; p >= 0; p--)
                CHECK_OK(MPI_Pready(p, req));
            CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            for (long i = 0; i < span; i++) {
                if (c->isdbl)
                    ((double *)buf)[i] = -7.5;
                else
                    ((int *)buf)[i] = -7;
            }
            CHECK_OK(MPI_Start(&req));
            for (int p = 0; p < c->rp; p++)
                spin_arrived(req, p, c->name);
            CHECK_OK(MPI_Wait(&req, &st));
            check_recv_status(&st, c->rt, peer, TAG, c->rp * c->rc, c->name);
            for (long k = 0; k < c->n; k++) {
                long o = c->roff(k);
                if (c->isdbl)
                    CHECK(((double *)buf)[o] == dval(rr, peer, k), "%s round %d: element %ld (at %ld) is %g, want %g",
                          c->name, r, k, o, ((double *)buf)[o], dval(rr, peer, k));
                else
                    CHECK(((int *)buf)[o] == pval(rr, peer, k), "%s round %d: element %ld (at %ld) is %d, want %d",
                          c->name, r, k, o, ((int *)buf)[o], pval(rr, peer, k));
            }
            for (long i = 0; i < span; i++) {
                if (mark[i])
                    continue;
                if (c->isdbl)
                    CHECK(((double *)buf)[i] == -7.5, "%s round %d: gap %ld written (%g)", c->name, r, i,
                          ((double *)buf)[i]);
                else
                    CHECK(((int *)buf)[i] == -7, "%s round %d: gap %ld written (%d)", c->name, r, i, ((int *)buf)[i]);
            }
        }
    }
    CHECK_OK(MPI_Request_free(&req));
    free(buf);
    free(mark);
}

int main(int argc, char **argv)
{
    int nrounds = argc > 1 ? atoi(argv[1]) : 3;
    MPI_Datatype vec, vec_r, res3, con3, vec235, dvec, dind;
    part_init(&argc, &argv);

    CHECK_OK(MPI_Type_vector(16, 1, 2, MPI_INT, &vec));
    CHECK_OK(MPI_Type_create_resized(vec, 0, 32 * sizeof(int), &vec_r));
    CHECK_OK(MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &res3));
    CHECK_OK(MPI_Type_contiguous(3, MPI_INT, &con3));
    CHECK_OK(MPI_Type_vector(2, 3, 5, MPI_INT, &vec235));
    CHECK_OK(MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &dvec));
    int bl[2] = {2, 1}, disp[2] = {0, 5};
    CHECK_OK(MPI_Type_indexed(2, bl, disp, MPI_DOUBLE, &dind));
    MPI_Datatype all[] = {vec_r, res3, con3, vec235, dvec, dind};
    for (int i = 0; i < 6; i++)
        CHECK_OK(MPI_Type_commit(&all[i]));
    vec_r = all[0], res3 = all[1], con3 = all[2], vec235 = all[3], dvec = all[4], dind = all[5];
    /* The indexed type's extent is 6 doubles (0..5), the vector's 9 (0..8). */
    MPI_Aint lb, ext;
    CHECK_OK(MPI_Type_get_extent(dind, &lb, &ext));
    CHECK(lb == 0 && ext == 6 * (MPI_Aint)sizeof(double), "indexed extent %ld", (long)ext);
    CHECK_OK(MPI_Type_get_extent(vec235, &lb, &ext));
    CHECK(lb == 0 && ext == 8 * (MPI_Aint)sizeof(int), "vector(2,3,5) extent %ld", (long)ext);

    struct dcase cases[] = {
        {"A vector->contiguous", 0, 8, 1, 4, 32, 128, 256, 128, a_soff, id_off, vec_r, MPI_INT},
        {"B contiguous->resized", 0, 4, 32, 8, 16, 128, 128, 3 * 127 + 1, id_off, b_roff, MPI_INT, res3},
        {"C contiguous(3)->vector(2,3,5)", 0, 6, 5, 5, 3, 90, 90, 15 * 8, id_off, c_roff, con3, vec235},
        {"D vector(double)->indexed(double)", 1, 4, 2, 2, 4, 24, 8 * 9, 8 * 6, d_soff, d_roff, dvec, dind},
    };
    for (int ci = 0; ci < 4; ci++)
        for (int dir = 0; dir < 2; dir++)
            run(&cases[ci], nrounds, (rank + dir) % 2 == 0, ci);

    for (int i = 0; i < 6; i++)
        CHECK_OK(MPI_Type_free(&all[i]));
    CHECK_OK(MPI_Type_free(&vec));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("part datatypes: 4 cases both ways, %d rounds each, %d processes: OK\n", nrounds, nproc);
    CHECK_OK(MPI_Finalize());
    return 0;
}

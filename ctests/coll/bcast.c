/* bcast: MPI_Barrier/Ibarrier/Barrier_init (nobody leaves before the last rank
 * entered) and MPI_Bcast in every form (blocking, nonblocking completed by Wait and
 * by Test, persistent started twice with new data; int and MPI_Count bindings) for
 * counts 0 to 100000 (rendezvous), MPI_INT, MPI_DOUBLE and a vector type with gaps,
 * and every root position. */
#include <time.h>
#include <unistd.h>
#include "coll_util.h"

/* now reads the system-wide monotonic clock, which all ranks on one host share. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void test_barrier(void)
{
    for (int mode = 0; mode < NMODES; mode++) {
        MPI_Request req = MPI_REQUEST_NULL;
        for (int it = 0; it < iters(mode); it++) {
            /* The late rank enters 20 ms after the others: no one may leave before. */
            int late = (mode + it) % g_size;
            double entered = 0;
            if (g_rank == late) {
                usleep(20000);
                entered = now();
            }
            RUN(mode, it, req, MPI_Barrier(MPI_COMM_WORLD), MPI_Ibarrier(MPI_COMM_WORLD, &req),
                MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &req));
            double left = now();
            CHECK_OK(MPI_Bcast(&entered, 1, MPI_DOUBLE, late, MPI_COMM_WORLD));
            CHECK(left >= entered, "%s barrier: rank %d left %.6f s before late rank %d entered",
                  mode_names[mode], g_rank, entered - left, late);
        }
        DONE(mode, req);
    }
}

static void test_bcast(void)
{
    const long counts[] = {0, 1, 7, 600, 100000};
    const int ls[] = {L_INT, L_DOUBLE, L_VEC};
    for (int li = 0; li < 3; li++) {
        const lay_t *L = &lays[ls[li]];
        for (int ci = 0; ci < 5; ci++) {
            long n = counts[ci];
            void *buf = lalloc(L, n), *want = lalloc(L, n);
            for (int rk = 0; rk < nroots(g_size); rk++) {
                int root = root_at(rk, g_size);
                for (int mode = 0; mode < NMODES; mode++) {
                    for (int lc = 0; lc < 2; lc++) {
                        /* Large vectors only once per root: they dominate the run time. */
                        if (n == 100000 && L->k > 1 && (lc || mode == M_TEST))
                            continue;
                        MPI_Request req = MPI_REQUEST_NULL;
                        for (int it = 0; it < iters(mode); it++) {
                            lpoison(L, buf, n);
                            lpoison(L, want, n);
                            fillc(L, want, n, it + mode, root);
                            if (g_rank == root)
                                fillc(L, buf, n, it + mode, root);
                            if (lc)
                                RUN(mode, it, req, MPI_Bcast_c(buf, n, L->type, root, MPI_COMM_WORLD),
                                    MPI_Ibcast_c(buf, n, L->type, root, MPI_COMM_WORLD, &req),
                                    MPI_Bcast_init_c(buf, n, L->type, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                            else
                                RUN(mode, it, req, MPI_Bcast(buf, (int)n, L->type, root, MPI_COMM_WORLD),
                                    MPI_Ibcast(buf, (int)n, L->type, root, MPI_COMM_WORLD, &req),
                                    MPI_Bcast_init(buf, (int)n, L->type, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
                            CHECK_BUF(L, buf, want, n, "%s bcast%s count %ld root %d iteration %d",
                                      mode_names[mode], lc ? "_c" : "", n, root, it);
                        }
                        DONE(mode, req);
                    }
                }
            }
            free(buf);
            free(want);
        }
    }
}

int main(int argc, char **argv)
{
    coll_init(&argc, &argv);
    test_barrier();
    test_bcast();
    lays_free();
    CHECK_OK(MPI_Finalize());
    return 0;
}

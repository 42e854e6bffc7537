/* MPI_Barrier on a threadcomm of one process at team sizes that fill the arrival tree
 * (threadcomm/tc.h: barrier_arrive) in every shape: one counter (2, 3), one node (4),
 * partial leaves (5, 17, 21), two and three levels (16, 17, 21). In each of several
 * regions (ranks change with arrival order, and so the leaves threads arrive on), every
 * barrier is checked for both halves of its promise:
 *   - nobody leaves before everyone has arrived: a count each thread adds to before
 *     the barrier is complete after it;
 *   - what a thread wrote before the barrier is what the others read after it: plain
 *     stores in one of two alternating rows, read back by every thread.
 * Arguments: the team sizes (default "2 3 4 5 16 17 21"). */
#include <omp.h>
#include "mpix_test.h"
#include <mpix.h>

#define REGIONS 4
#define ROUNDS 300
#define MAXT 64

static int arrived[REGIONS][ROUNDS]; /* atomic */
static int rows[2][MAXT];

static void run(int nt)
{
    MPI_Comm tc;
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_SELF, nt, &tc));
    memset(arrived, 0, sizeof arrived);
    for (int reg = 0; reg < REGIONS; reg++) {
#pragma omp parallel num_threads(nt)
        {
            CHECK_OK(MPIX_Threadcomm_start(tc));
            int rank;
            CHECK_OK(MPI_Comm_rank(tc, &rank));
            for (int r = 0; r < ROUNDS; r++) {
                rows[r & 1][rank] = reg * ROUNDS + r;
                __atomic_fetch_add(&arrived[reg][r], 1, __ATOMIC_RELAXED);
                CHECK_OK(MPI_Barrier(tc));
                int got = __atomic_load_n(&arrived[reg][r], __ATOMIC_RELAXED);
                CHECK(got == nt, "%d threads, region %d, barrier %d: rank %d left with %d arrived", nt, reg, r, rank,
                      got);
                for (int p = 0; p < nt; p++)
                    CHECK(rows[r & 1][p] == reg * ROUNDS + r, "%d threads, region %d, barrier %d: rank %d read %d from %d",
                          nt, reg, r, rank, rows[r & 1][p], p);
            }
            CHECK_OK(MPIX_Threadcomm_finish(tc));
        }
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static const int sizes[] = {2, 3, 4, 5, 16, 17, 21};
    int n = argc > 1 ? argc - 1 : (int)(sizeof sizes / sizeof sizes[0]);
    for (int i = 0; i < n; i++) {
        int nt = argc > 1 ? atoi(argv[i + 1]) : sizes[i];
        CHECK(nt >= 1 && nt <= MAXT, "team size %d", nt);
        run(nt);
        printf("barrier: %d threads, %d regions of %d barriers\n", nt, REGIONS, ROUNDS);
    }
    CHECK_OK(MPI_Finalize());
    return 0;
}

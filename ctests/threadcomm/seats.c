/* Seats (threadcomm/region.c: take_seat) when the threads of a threadcomm change from region
 * to region: a pool of plain pthreads takes turns, NT of them per region, starting in
 * an order set per round, so that a thread's seat from an earlier region is often
 * wanted by another thread too, or its holder sits this round out. Each region checks:
 *   - ranks are a permutation;
 *   - MPI_Allreduce and MPI_Reduce of 1 Ki ints (sliced folds) and of one double (on
 *     the seats themselves), to a root that moves, against serial references.
 * Every call here runs in C (threadcomm/), so every region after the first starts
 * there and takes seats.
 * MPI is initialised with MPI_THREAD_SINGLE: an active threadcomm works regardless.
 * Run with MPIX_THREADCOMM_SEATS=1 (more threads than this machine's cores). */
#include <pthread.h>
#include <unistd.h>
#include "mpix_test.h"
#include <mpix.h>

#define POOL 7
#define NT 3
#define ROUNDS 400
#define N 1024

static MPI_Comm tc;
static pthread_barrier_t round_gate;
static int order[NT]; /* the round's pool threads, in the order they start */
static int round_no;
static int ranks_seen; /* atomic: the ranks taken this round, a bit each */
static int in_order;   /* atomic: threads whose rank was their place in the order */

static int position(int me)
{
    for (int k = 0; k < NT; k++)
        if (order[k] == me)
            return k;
    return -1;
}

static void region(int pos)
{
    /* Starts are collective (a start may wait for the others), so the order is only
     * encouraged: each thread starts a little after the one before it. */
    usleep(200 * pos);
    CHECK_OK(MPIX_Threadcomm_start(tc));
    int rank, size;
    CHECK_OK(MPI_Comm_rank(tc, &rank));
    CHECK_OK(MPI_Comm_size(tc, &size));
    CHECK(size == NT && rank >= 0 && rank < NT, "round %d: rank %d of %d", round_no, rank, size);
    CHECK(!(__atomic_fetch_or(&ranks_seen, 1 << rank, __ATOMIC_RELAXED) & (1 << rank)), "round %d: rank %d twice",
          round_no, rank);
    __atomic_fetch_add(&in_order, rank == pos, __ATOMIC_RELAXED);

    static __thread int in[N], out[N];
    for (int i = 0; i < N; i++)
        in[i] = rank * 1000 + i;
    memset(out, 0xff, sizeof out);
    CHECK_OK(MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, tc));
    for (int i = 0; i < N; i++)
        CHECK(out[i] == 1000 * NT * (NT - 1) / 2 + NT * i, "round %d: allreduce[%d] = %d", round_no, i, out[i]);

    int root = round_no % NT;
    memset(out, 0xff, sizeof out);
    CHECK_OK(MPI_Reduce(in, out, N, MPI_INT, MPI_MAX, root, tc));
    if (rank == root)
        for (int i = 0; i < N; i++)
            CHECK(out[i] == 1000 * (NT - 1) + i, "round %d: reduce[%d] = %d", round_no, i, out[i]);

    double x = rank + 0.5, sum = -1;
    CHECK_OK(MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, tc));
    CHECK(sum == NT * NT / 2.0, "round %d: scalar allreduce %g", round_no, sum);

    CHECK_OK(MPIX_Threadcomm_finish(tc));
}

static void *pool_thread(void *arg)
{
    int me = (int)(long)arg;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&round_gate); /* the plan is set */
        int pos = position(me);
        if (pos >= 0)
            region(pos);
        pthread_barrier_wait(&round_gate); /* the region is over */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    CHECK_OK(MPI_Init(&argc, &argv));
    mpix_test_path_begin();
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_SELF, NT, &tc));
    pthread_barrier_init(&round_gate, NULL, POOL + 1);
    pthread_t th[POOL];
    for (long i = 0; i < POOL; i++)
        CHECK(pthread_create(&th[i], NULL, pool_thread, (void *)i) == 0, "pthread_create");
    unsigned seed = 12345;
    for (int r = 0; r < ROUNDS; r++) {
        /* A few rounds keep the same threads in a new order, the rest draw new ones. */
        round_no = r;
        if (r == 0 || r % 5 != 1) {
            int used = 0;
            for (int k = 0; k < NT; k++) {
                int t;
                do
                    t = (int)((seed = seed * 1103515245u + 12345u) >> 16) % POOL;
                while (used & (1 << t));
                used |= 1 << t;
                order[k] = t;
            }
        } else {
            int t = order[0];
            order[0] = order[NT - 1], order[NT - 1] = t;
        }
        ranks_seen = 0;
        pthread_barrier_wait(&round_gate);
        pthread_barrier_wait(&round_gate);
        CHECK(ranks_seen == (1 << NT) - 1, "round %d: ranks %#x", r, ranks_seen);
    }
    for (int i = 0; i < POOL; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    mpix_test_path_end();
    CHECK_OK(MPI_Finalize());
    printf("seats: %d regions of %d threads from a pool of %d, %d%% ranked in the order they were let start\n",
           ROUNDS, NT, POOL, in_order * 100 / (ROUNDS * NT));
    return 0;
}

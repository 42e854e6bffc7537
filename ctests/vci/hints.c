/* VCI hints on communicators (ICS'20 §2.1, §5.1; MPI-4 assertions; MPICH's keys).
 * Run with 2+ processes and MPIX_NUM_VCIS >= 8. Per-VCI traffic is observed through
 * the MPI_T counter mpix_vci_lock_acquisitions (one element per VCI).
 *
 *  1. mpi_assert_no_any_source + mpi_assert_no_any_tag: traffic spreads over several
 *     VCIs (mpix_vcis reported >= 2, lock counts grow on >= 2 VCIs), data arrives
 *     in order per (source, tag), and the excluded wildcards fail cleanly.
 *  2. mpi_assert_no_any_tag alone: MPI_ANY_SOURCE receives with a tag still work.
 *  3. mpi_assert_allow_overtaking alone: no spreading, all wildcards work.
 *  4. vci / sender_vci / receiver_vci: the communicator uses the VCI asked for.
 *  5. mpix_assert_single_thread: the owned VCI's lock is never taken by Isend,
 *     Irecv, Waitall, Testall; a communicator without the hint takes it.
 *  6. MPI_Comm_set_info records hints; MPI_Comm_dup then applies them.
 *  7. Four threads share one spread communicator, each with its own tag. */
#include <pthread.h>
#include "mpix_test.h"

#define MAXV 256
static int nvcis, rank, size, peer, from;
static MPI_T_pvar_session session;
static MPI_T_pvar_handle handle;

static void counts(unsigned long long v[MAXV])
{
    memset(v, 0, MAXV * sizeof v[0]);
    CHECK_OK(MPI_T_pvar_read(session, handle, v));
}

static MPI_Comm dup_with(const char *k1, const char *v1, const char *k2, const char *v2)
{
    MPI_Info info;
    MPI_Comm c;
    CHECK_OK(MPI_Info_create(&info));
    if (k1)
        CHECK_OK(MPI_Info_set(info, k1, v1));
    if (k2)
        CHECK_OK(MPI_Info_set(info, k2, v2));
    CHECK_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c));
    CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
    return c;
}

/* get returns the value of key in c's info (or "" if absent). */
static const char *get(MPI_Comm c, const char *key)
{
    static char val[MPI_MAX_INFO_VAL + 1];
    MPI_Info info;
    int flag = 0;
    CHECK_OK(MPI_Comm_get_info(c, &info));
    val[0] = 0;
    CHECK_OK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag));
    if (!flag)
        val[0] = 0;
    CHECK_OK(MPI_Info_free(&info));
    return val;
}

/* ring sends n messages with tags 0..n-1 (twice each, checked in order) to the
 * next rank and receives the same from the previous one. */
static void ring(MPI_Comm c, int n, int rsource)
{
    int out[64][2], in[64][2];
    MPI_Request rq[256];
    int k = 0;
    for (int t = 0; t < n; t++)
        for (int j = 0; j < 2; j++)
            CHECK_OK(MPI_Irecv(&in[t][j], 1, MPI_INT, rsource == MPI_ANY_SOURCE ? MPI_ANY_SOURCE : from, t, c, &rq[k++]));
    for (int t = 0; t < n; t++)
        for (int j = 0; j < 2; j++) {
            out[t][j] = rank * 1000 + t * 10 + j;
            CHECK_OK(MPI_Isend(&out[t][j], 1, MPI_INT, peer, t, c, &rq[k++]));
        }
    CHECK_OK(MPI_Waitall(k, rq, MPI_STATUSES_IGNORE));
    for (int t = 0; t < n; t++)
        for (int j = 0; j < 2; j++)
            CHECK(in[t][j] == from * 1000 + t * 10 + j, "tag %d message %d: got %d", t, j, in[t][j]);
}

/* busy counts the VCIs whose lock count changed between a and b. */
static int busy(unsigned long long a[MAXV], unsigned long long b[MAXV])
{
    int n = 0;
    for (int i = 0; i < nvcis; i++)
        n += a[i] != b[i];
    return n;
}

struct thr {
    MPI_Comm c;
    int tag;
};

static void *worker(void *p)
{
    struct thr *t = p;
    for (int i = 0; i < 200; i++) {
        int out = rank * 100000 + t->tag * 1000 + i, in = -1;
        MPI_Request rq[2];
        CHECK_OK(MPI_Irecv(&in, 1, MPI_INT, from, t->tag, t->c, &rq[0]));
        CHECK_OK(MPI_Isend(&out, 1, MPI_INT, peer, t->tag, t->c, &rq[1]));
        CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
        CHECK(in == from * 100000 + t->tag * 1000 + i, "thread %d round %d: got %d", t->tag, i, in);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, idx;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK(provided == MPI_THREAD_MULTIPLE, "thread level %d", provided);
    CHECK_OK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    peer = (rank + 1) % size;
    from = (rank - 1 + size) % size;
    CHECK_OK(MPI_T_pvar_get_index("mpix_vci_lock_acquisitions", MPI_T_PVAR_CLASS_COUNTER, &idx));
    CHECK_OK(MPI_T_pvar_session_create(&session));
    CHECK_OK(MPI_T_pvar_handle_alloc(session, idx, NULL, &handle, &nvcis));
    CHECK(nvcis >= 8 && nvcis <= MAXV, "run with MPIX_NUM_VCIS >= 8 (have %d)", nvcis);
    unsigned long long a[MAXV], b[MAXV];

    /* 1. Both wildcards excluded: spread by (source, tag). */
    MPI_Comm both = dup_with("mpi_assert_no_any_source", "true", "mpi_assert_no_any_tag", "true");
    int spread = atoi(get(both, "mpix_vcis"));
    CHECK(spread >= 2, "mpix_vcis = \"%s\"", get(both, "mpix_vcis"));
    CHECK(strcmp(get(both, "mpi_assert_no_any_source"), "true") == 0, "hint not reported");
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    counts(a);
    ring(both, 8, 0);
    counts(b);
    CHECK(busy(a, b) >= 2, "8 tags used %d VCIs", busy(a, b));
    int x = 0;
    CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 0, both, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, from, MPI_ANY_TAG, both, MPI_STATUS_IGNORE), MPI_ERR_TAG);
    int flag;
    CHECK_CLASS(MPI_Iprobe(MPI_ANY_SOURCE, 1, both, &flag, MPI_STATUS_IGNORE), MPI_ERR_RANK);
    /* A probe and a matched probe for (source, tag) look on the right VCI. */
    int v = rank + 7, w = -1;
    MPI_Status st;
    MPI_Message msg;
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, peer, 5, both));
    CHECK_OK(MPI_Probe(from, 5, both, &st));
    CHECK(st.MPI_SOURCE == from && st.MPI_TAG == 5, "probe status %d %d", st.MPI_SOURCE, st.MPI_TAG);
    CHECK_OK(MPI_Mprobe(from, 5, both, &msg, &st));
    CHECK_OK(MPI_Mrecv(&w, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
    CHECK(w == from + 7, "mrecv got %d", w);
    /* Collectives on a spread communicator still work. */
    int sum = 0;
    CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, both));
    CHECK(sum == size * (size - 1) / 2, "allreduce %d", sum);

    /* 2. Only tags fixed: MPI_ANY_SOURCE is fine, tags spread. */
    MPI_Comm tagged = dup_with("mpi_assert_no_any_tag", "true", NULL, NULL);
    CHECK(atoi(get(tagged, "mpix_vcis")) >= 2, "no_any_tag did not spread");
    ring(tagged, 6, MPI_ANY_SOURCE);
    CHECK_CLASS(MPI_Recv(&x, 1, MPI_INT, from, MPI_ANY_TAG, tagged, MPI_STATUS_IGNORE), MPI_ERR_TAG);

    /* 3. allow_overtaking alone cannot spread (receives with wildcards). */
    MPI_Comm over = dup_with("mpi_assert_allow_overtaking", "true", NULL, NULL);
    CHECK(get(over, "mpix_vcis")[0] == 0, "allow_overtaking alone spread over %s VCIs", get(over, "mpix_vcis"));
    CHECK(strcmp(get(over, "mpi_assert_allow_overtaking"), "true") == 0, "hint not reported");
    ring(over, 4, MPI_ANY_SOURCE);
    v = rank;
    CHECK_OK(MPI_Sendrecv(&v, 1, MPI_INT, peer, 3, &w, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, over, &st));
    CHECK(w == from && st.MPI_TAG == 3, "wildcard receive got %d tag %d", w, st.MPI_TAG);

    /* 4. MPICH's keys: the VCI in use is the one asked for (modulo the pool). */
    char want[16];
    snprintf(want, sizeof want, "%d", nvcis - 1);
    MPI_Comm pinned = dup_with("vci", want, NULL, NULL);
    CHECK(strcmp(get(pinned, "vci"), want) == 0, "vci = \"%s\", want %s", get(pinned, "vci"), want);
    counts(a);
    ring(pinned, 3, 0);
    counts(b);
    CHECK(b[nvcis - 1] > a[nvcis - 1], "no traffic on VCI %d", nvcis - 1);
    snprintf(want, sizeof want, "%d", nvcis + 2); /* wraps to VCI 2 */
    MPI_Comm sr = dup_with("sender_vci", "1", "receiver_vci", want);
    CHECK(strcmp(get(sr, "receiver_vci"), "2") == 0 && strcmp(get(sr, "sender_vci"), "2") == 0,
          "sender_vci %s receiver_vci %s", get(sr, "sender_vci"), get(sr, "receiver_vci"));
    counts(a);
    ring(sr, 3, 0);
    counts(b);
    CHECK(b[2] > a[2], "no traffic on VCI 2");
    MPI_Comm bad = dup_with("vci", "banana", NULL, NULL);
    ring(bad, 2, 0);
    CHECK_OK(MPI_Comm_free(&bad));

    /* 5. Single thread: the owned VCI is used without its lock. Pin it to a known
     * VCI no other communicator uses (the pool hands out low indices first). */
    snprintf(want, sizeof want, "%d", nvcis - 2);
    MPI_Info info;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "vci", want));
    CHECK_OK(MPI_Info_set(info, "mpix_assert_single_thread", "true"));
    MPI_Comm single;
    CHECK_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &single));
    CHECK_OK(MPI_Info_free(&info));
    CHECK(strcmp(get(single, "mpix_assert_single_thread"), "true") == 0, "single-thread hint not applied: %s",
          get(single, "mpix_assert_single_thread"));
    CHECK(strcmp(get(single, "vci"), want) == 0, "single vci %s", get(single, "vci"));
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    counts(a);
    for (int i = 0; i < 20; i++)
        ring(single, 4, 0);
    {
        int o = rank, in2 = -1, done = 0;
        MPI_Request rq[2];
        CHECK_OK(MPI_Irecv(&in2, 1, MPI_INT, from, 1, single, &rq[0]));
        CHECK_OK(MPI_Isend(&o, 1, MPI_INT, peer, 1, single, &rq[1]));
        while (!done)
            CHECK_OK(MPI_Testall(2, rq, &done, MPI_STATUSES_IGNORE));
        CHECK(in2 == from, "testall got %d", in2);
    }
    counts(b);
    CHECK(b[nvcis - 2] == a[nvcis - 2], "single-thread VCI %d took its lock %llu times", nvcis - 2,
          b[nvcis - 2] - a[nvcis - 2]);
    /* The same with the lock: a communicator without the hint takes it. */
    snprintf(want, sizeof want, "%d", nvcis - 3);
    MPI_Comm locked = dup_with("vci", want, "mpix_assert_single_thread", "false");
    CHECK(strcmp(get(locked, "mpix_assert_single_thread"), "false") == 0, "hint misreported");
    counts(a);
    ring(locked, 4, 0);
    counts(b);
    CHECK(b[nvcis - 3] > a[nvcis - 3], "the locked VCI took no lock");
    /* A VCI owned here cannot be pinned by another communicator: the hint falls
     * back to normal allocation, and both communicators still work. */
    snprintf(want, sizeof want, "%d", nvcis - 2);
    MPI_Comm intruder = dup_with("vci", want, NULL, NULL);
    CHECK(strcmp(get(intruder, "vci"), want) != 0, "pinned onto an owned VCI");
    ring(intruder, 2, 0);
    ring(single, 2, 0);
    CHECK_OK(MPI_Comm_free(&intruder));
    CHECK_OK(MPI_Comm_free(&single));
    CHECK_OK(MPI_Comm_free(&locked));

    /* 6. MPI_Comm_set_info records the hints; a duplicate applies them. */
    MPI_Comm plain;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &plain));
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_source", "true"));
    CHECK_OK(MPI_Comm_set_info(plain, info));
    CHECK_OK(MPI_Info_free(&info));
    CHECK(strcmp(get(plain, "mpi_assert_no_any_source"), "true") == 0, "set_info hint not reported");
    CHECK(get(plain, "mpix_vcis")[0] == 0, "set_info moved a live communicator");
    MPI_Comm plain2;
    CHECK_OK(MPI_Comm_dup(plain, &plain2));
    CHECK(atoi(get(plain2, "mpix_vcis")) >= 2, "dup did not apply the inherited hint");
    CHECK_OK(MPI_Comm_set_errhandler(plain2, MPI_ERRORS_RETURN));
    ring(plain2, 4, 0);
    CHECK_OK(MPI_Comm_free(&plain));
    CHECK_OK(MPI_Comm_free(&plain2));

    /* Split_type with info applies hints too. */
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "mpi_assert_no_any_source", "true"));
    MPI_Comm node;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, info, &node));
    CHECK_OK(MPI_Info_free(&info));
    CHECK(strcmp(get(node, "mpi_assert_no_any_source"), "true") == 0, "split_type lost the hint");
    CHECK_OK(MPI_Comm_free(&node));

    /* 7. Threads sharing one spread communicator, one tag each. */
    pthread_t th[4];
    struct thr ts[4];
    for (int i = 0; i < 4; i++) {
        ts[i] = (struct thr){both, i};
        pthread_create(&th[i], NULL, worker, &ts[i]);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);

    CHECK_OK(MPI_Comm_free(&both));
    CHECK_OK(MPI_Comm_free(&tagged));
    CHECK_OK(MPI_Comm_free(&over));
    CHECK_OK(MPI_Comm_free(&pinned));
    CHECK_OK(MPI_Comm_free(&sr));
    CHECK_OK(MPI_T_pvar_handle_free(session, &handle));
    CHECK_OK(MPI_T_pvar_session_free(&session));
    CHECK_OK(MPI_T_finalize());
    CHECK_OK(MPI_Finalize());
    if (rank == 0)
        printf("hints: spread over %d VCIs\n", spread);
    return 0;
}

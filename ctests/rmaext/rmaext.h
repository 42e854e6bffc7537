/* Helpers shared by the tests of the RMA paper's extensions ([RMA] Schuchart et al.,
 * "Quo Vadis MPI RMA?", EuroMPI'21; declared in include/mpix.h section 3): info
 * objects, reading a window's info, polling a signal counter at the target,
 * deciding whether the ranks reach each other through shared memory, and what the
 * programs share besides: their start and totals, zeroed windows, the listings' MPI_Test
 * loop and target-side check, receiving a memory handle.
 *
 * The window kinds of ctests/rma/rma_util.h (every flavour, user memory from malloc
 * and from MPI_Alloc_mem) are reused. */
#ifndef RMAEXT_H
#define RMAEXT_H
#include <stdarg.h>
#include <stdint.h>
#include "rma_util.h"

/* the info keys' names, for building the standard MPI parts with another MPI's mpi.h */
#ifndef MPIX_INFO_WIN_ORDER
#define MPIX_INFO_WIN_SCOPE "mpi_win_scope"
#define MPIX_WIN_SCOPE_PROCESS "process"
#define MPIX_WIN_SCOPE_THREAD "thread"
#define MPIX_INFO_WIN_ORDER "mpi_win_order"
#define MPIX_INFO_ASSERT_ACCUMULATE_INTRINSIC "mpi_assert_accumulate_intrinsic"
#define MPIX_INFO_TRUE "true"
#define MPIX_INFO_FALSE "false"
#endif

#ifndef MPIX_WIN_FLAVOR_MEMHANDLE
#define MPIX_WIN_FLAVOR_MEMHANDLE 5
#endif

/* rmaext_info makes an info object from key, value pairs ending with NULL. */
static inline MPI_Info rmaext_info(const char *key, ...)
{
    MPI_Info info;
    va_list ap;
    CHECK_OK(MPI_Info_create(&info));
    va_start(ap, key);
    for (const char *k = key; k != NULL; k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        CHECK_OK(MPI_Info_set(info, k, v));
    }
    va_end(ap);
    return info;
}

/* rmaext_win_info copies into val (of size n) the value MPI_Win_get_info reports for
 * key; returns 0 when the key is absent (val then is ""). */
static inline int rmaext_win_info(MPI_Win win, const char *key, char *val, int n)
{
    MPI_Info info;
    int flag = 0, len = n - 1;
    val[0] = 0;
    CHECK_OK(MPI_Win_get_info(win, &info));
    CHECK(info != MPI_INFO_NULL, "MPI_Win_get_info returned MPI_INFO_NULL");
    CHECK_OK(MPI_Info_get_string(info, key, &len, val, &flag));
    CHECK_OK(MPI_Info_free(&info));
    if (!flag)
        val[0] = 0;
    return flag;
}

/* RMAEXT_CHECK_INFO fails unless MPI_Win_get_info reports key with value want.
 * Built with -DRMAEXT_NO_INFO_CHECK (to validate the standard MPI parts of a program
 * against MPICH, which ignores the paper's keys) it checks nothing. */
#ifdef RMAEXT_NO_INFO_CHECK
#define RMAEXT_CHECK_INFO(win, key, want, what) ((void)(win), (void)(what))
#else
#define RMAEXT_CHECK_INFO(win, key, want, what)                                                         \
    do {                                                                                                \
        char v_[MPI_MAX_INFO_VAL + 1];                                                                  \
        int has_ = rmaext_win_info((win), (key), v_, sizeof v_);                                        \
        CHECK(has_ && strcmp(v_, (want)) == 0, "%s: MPI_Win_get_info reports %s=%s%s, want %s", (what), \
              (key), has_ ? v_ : "", has_ ? "" : "(absent)", (want));                                   \
    } while (0)
#endif

/* rmaext_class is the error class of a return code (MPI_SUCCESS for success). */
static inline int rmaext_class(int rc) { return mpix_test_class(rc); }

/* rmaext_unified: the window's memory model is MPI_WIN_UNIFIED (public and private
 * copies are one: a load sees what remote operations wrote once they completed). */
static inline int rmaext_unified(MPI_Win win)
{
    int *model = NULL, flag = 0;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && model != NULL, "no MPI_WIN_MODEL attribute");
    return *model == MPI_WIN_UNIFIED;
}

/* rmaext_progress_comm: a private communicator that nobody sends on, for MPI_Iprobe
 * calls whose only purpose is to drive progress while a target polls its own memory
 * (MPI_Win_sync need not make progress). Made by rmaext_init. */
static MPI_Comm rmaext_progress_comm = MPI_COMM_NULL;

static inline void rmaext_init(void)
{
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &rmaext_progress_comm));
}

static inline void rmaext_fini(void) { CHECK_OK(MPI_Comm_free(&rmaext_progress_comm)); }

static inline void rmaext_poke(void)
{
    int flag;
    CHECK_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, rmaext_progress_comm, &flag, MPI_STATUS_IGNORE));
}

/* rmaext_read_counter reads the int at byte off of this process's window w (inside a
 * passive-target epoch that covers this process, e.g. MPI_Win_lock_all): with
 * use_load 0 by MPI_Fetch_and_op(MPI_NO_OP) on itself and a flush; otherwise (unified
 * windows only) by MPI_Win_sync and an atomic load, with an MPI_Iprobe for progress. */
static inline int rmaext_read_counter(const rma_win *w, MPI_Aint off, int use_load)
{
    int v = 0;
    if (use_load) {
        CHECK_OK(MPI_Win_sync(w->win));
        v = __atomic_load_n((int *)(w->base + off), __ATOMIC_ACQUIRE);
        CHECK_OK(MPI_Win_sync(w->win));
        rmaext_poke();
        return v;
    }
    CHECK_OK(MPI_Fetch_and_op(NULL, &v, MPI_INT, w->rank, rma_disp(w, w->rank, off), MPI_NO_OP, w->win));
    CHECK_OK(MPI_Win_flush(w->rank, w->win));
    return v;
}

/* rmaext_wait_counter polls the counter until it reaches want (or fails after
 * timeout seconds, naming what). */
static inline void rmaext_wait_counter(const rma_win *w, MPI_Aint off, int want, int use_load, double timeout,
                                       const char *what)
{
    double t0 = MPI_Wtime();
    int v;
    while ((v = rmaext_read_counter(w, off, use_load)) < want)
        CHECK(MPI_Wtime() - t0 < timeout, "%s: the signal counter stays at %d, want %d after %.0f s", what, v, want,
              timeout);
    CHECK(v == want, "%s: the signal counter is %d, want %d", what, v, want);
}

/* rmaext_same_node: every process of MPI_COMM_WORLD is in one shared-memory node. */
static inline int rmaext_same_node(void)
{
    MPI_Comm node;
    int n, size;
    CHECK_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    CHECK_OK(MPI_Comm_size(node, &n));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK_OK(MPI_Comm_free(&node));
    return n == size;
}

/* rmaext_shm_on: mpix's shared-memory transport is in use between the processes of a
 * node (MPIX_SHM unset or not "0"). */
static inline int rmaext_shm_on(void)
{
    const char *v = getenv("MPIX_SHM");
    return v == NULL || strcmp(v, "0") != 0;
}

/* rmaext_start: MPI_Init, then this process's rank and the number of processes, which
 * must be at least 2 (the programs' common start). */
static inline void rmaext_start(int *argc, char ***argv, int *rank, int *nproc)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, nproc);
    CHECK(*nproc >= 2, "needs at least 2 processes");
}

/* rmaext_arg: the program's first argument as a number, or def without one. */
static inline int rmaext_arg(int argc, char **argv, int def) { return argc > 1 ? atoi(argv[1]) : def; }

/* rmaext_total: the sum of n over MPI_COMM_WORLD, at rank 0 (for the PASS line). */
static inline long rmaext_total(long n)
{
    long total = 0;
    MPI_Reduce(&n, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    return total;
}

/* rmaext_open_zeroed: rma_open, then this process's part of the window zeroed, and a
 * barrier so that no process writes to a part not zeroed yet. */
static inline void rmaext_open_zeroed(rma_win *w, int kind, MPI_Aint size, int disp_unit, MPI_Info info)
{
    rma_open(w, kind, size, disp_unit, info, MPI_COMM_WORLD);
    rma_local_begin(w);
    memset(w->base, 0, w->size);
    rma_local_end(w);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
}

/* rmaext_val: int i of the data that rank src writes in iteration it (distinct for
 * i < 65536). */
static inline int rmaext_val(int src, int it, int i) { return (src * 1000 + it) * 65536 + i; }

/* rmaext_wait_data: the target's side of Listings 1 and 2: waits until the signal
 * counter at byte off_counter reaches want, then the n ints at byte off_data must be
 * rmaext_val(source, it, i); why says what a wrong int means. */
static inline void rmaext_wait_data(const rma_win *w, MPI_Aint off_counter, int want, int use_load, MPI_Aint off_data,
                                    int n, int source, int it, const char *what, const char *why)
{
    rmaext_wait_counter(w, off_counter, want, use_load, 60, what);
    CHECK_OK(MPI_Win_sync(w->win));
    const int *data = (const int *)(w->base + off_data);
    for (int i = 0; i < n; i++)
        CHECK(data[i] == rmaext_val(source, it, i), "%s: %s: data[%d] is %d, want %d (from rank %d)", what, why, i,
              data[i], rmaext_val(source, it, i), source);
}

#ifdef MPIX_MAX_MEMHANDLE_SIZE
/* rmaext_recv_handle: receives a memory handle's bytes from rank src into h (the rest
 * zeroed) and returns how many bytes came. */
static inline int rmaext_recv_handle(MPIX_Memhandle *h, int src, int tag)
{
    MPI_Status st;
    int n;
    memset(h, 0, sizeof *h);
    CHECK_OK(MPI_Recv(h->bytes, MPIX_MAX_MEMHANDLE_SIZE, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st));
    CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    return n;
}
#endif

/* useful work between tests of a request, as in the paper's listings */
static volatile double rmaext_sink;
static inline void do_useful_work(void)
{
    double x = rmaext_sink;
    for (int i = 0; i < 200; i++)
        x = x * 0.999 + i;
    rmaext_sink = x;
}

/* rmaext_test_loop: the listings' MPI_Test loop: useful work until req completes;
 * returns the rounds of work done. */
static inline long rmaext_test_loop(MPI_Request *req)
{
    int flag;
    long rounds = 0;
    do {
        do_useful_work();
        rounds++;
        CHECK_OK(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
    } while (!flag);
    return rounds;
}
#endif

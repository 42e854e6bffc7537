/* rmaext: the RMA extensions of "Quo Vadis MPI RMA?" (EuroMPI'21, sec. 2 and 4,
 * evaluated in sec. 7, Figures 8-12), rank 0 the origin, rank 1 the target,
 * 2 processes, MPI_Init_thread(MPI_THREAD_MULTIPLE).
 *
 *     rmaext scope [-threads LIST]   Figures 8-9: 8-byte MPI_Put + MPI_Win_flush to the
 *                       target, per thread, with THREADS threads of rank 0 at once, each
 *                       putting to its own 64-byte slot of one MPI_Win_allocate window
 *                       inside one MPI_Win_lock_all epoch. Rows: process (the window,
 *                       created with mpi_win_scope=process) and thread (a handle from
 *                       MPIX_Win_dup_with_info(win, {mpi_win_scope=thread}), mpix only);
 *                       prints "rmascope SCOPE THREADS US"
 *     rmaext order [-threads LIST] [-batch N]   Figures 10-11: time per 8-byte put,
 *                       same threads, slots and epoch: put+flush (a flush after each put),
 *                       ordered (N puts then one flush, on a window created with
 *                       mpi_win_order=true, mpix only), ordered+thread (the same window
 *                       with mpi_win_scope=thread too, mpix only) and unordered (N puts
 *                       then one flush on the plain window: no ordering, the bound);
 *                       prints "rmaorder MODE THREADS US"
 *     rmaext windows    Figure 12: MPI_Put + MPI_Win_flush latency by size (8 B .. 64 KiB)
 *                       inside one MPI_Win_lock(MPI_LOCK_SHARED) epoch, on: allocate
 *                       (MPI_Win_allocate), dynamic (MPI_Win_create_dynamic + MPI_Win_attach
 *                       of MPI_Alloc_mem memory, address sent with MPI_Send),
 *                       dynamic-malloc (the same over malloc'd memory), memhandle and
 *                       memhandle-malloc (mpix only: the target's MPIX_Memhandle_create of
 *                       such memory on a dynamic window, the handle sent with MPI_Send, the
 *                       origin's MPIX_Win_from_memhandle; lock and unlock on the parent
 *                       dynamic window, put and flush on the memhandle window); prints
 *                       "rmawin FLAVOUR SIZE US". Then the costs around them: memhandle
 *                       create+free (origin: MPIX_Win_from_memhandle + MPI_Win_free),
 *                       memhandle create+put+flush+free 8 B (the paper's "with window
 *                       creation and destruction"), memhandle register+release (target:
 *                       MPIX_Memhandle_create + MPIX_Memhandle_release of 64 KiB) and, for
 *                       every library, dynamic attach+detach (target: MPI_Win_attach +
 *                       MPI_Win_detach of 64 KiB); prints "rmawin WHAT US".
 *
 * LIST is comma-separated thread counts (default 1, 2, 4, ... up to the online CPUs).
 * With 2 processes on a 2-core machine, the target waits in MPI_Barrier on one core
 * while THREADS origin threads share the other: from 2 threads on they oversubscribe.
 *
 * A row whose extension the library lacks is skipped, with a "note ..." line on
 * standard output that bench/driver puts under the table: the extension calls are
 * compiled only against mpix (MPIX_EXTENSIONS_VERSION, from mpix.h, which mpix's mpi.h
 * includes), and a call that fails (MPI_ERR_UNSUPPORTED_OPERATION before the
 * extension works) or a key that MPI_Win_get_info does not report back skips its rows.
 * MPICH and Open MPI run the process-scope, put+flush, unordered, allocate and dynamic
 * rows.
 *
 * Timing follows bench/rma.c, with clock_gettime(CLOCK_MONOTONIC) as the clock (on
 * mpix MPI_Wtime enters Go). A windows-mode row first estimates the cost of its unit
 * (one put+flush, one create+free: runs doubling until one takes 1 ms), chooses its count (10000 units, fewer above 4 KiB,
 * cut to a 20 ms budget, at least 10), warms up with a tenth as many, then times them
 * in 32 chunks and reports the median over the chunks of the mean time per unit. A
 * threaded row (scope, order; one thread included) runs as many units (one put+flush,
 * or N puts + flush) as fit in 50 ms by the slowest thread's estimate (at least 10,
 * or 3 batches), warms up with a tenth as many, and times them in 4 chunks of about
 * 12 ms, so that a chunk spans scheduler ticks and the threads' contention and time
 * sharing are in it; the threads start their timed loops together (a pthread
 * barrier), and the row is the mean over the threads of each one's median chunk, per
 * put: the time per put that one thread sees while all of them put.
 *
 * Built once against each MPI and run by bench/driver (figures.go). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "bench_util.h" /* iterations, median, human */

#if defined(MPIX_EXTENSIONS_VERSION)
#define HAVE_EXT 1 /* mpix: the extension procedures are declared (they may fail) */
#else
#define HAVE_EXT 0
#endif

#define MAXTHREADS 64
#define SLOT 64               /* bytes per thread in the threaded modes */
#define MAXSIZE (64 * 1024)   /* largest put of the windows mode */
#define LAT_BUDGET 0.02       /* seconds of timed units a single-threaded row */
#define MT_BUDGET 0.05        /* the same, threaded rows */
#define CHUNKS 32
#define MT_CHUNKS 4           /* chunks of a threaded row: each spans scheduler ticks */

static int rank, provided;
#define note(...) note_from(rank, __VA_ARGS__)
static int nthreads_list[MAXTHREADS], nlist;
static int batch_n = 64;

/* ---- timing (as bench/rma.c; iterations and median in bench_util.h) ---- */

/* A unit of a row: run k units, return nothing; per-unit divisor given separately. */
typedef void (*unit_fn)(void *ctx, long k);

/* now is a monotonic clock in seconds (not MPI_Wtime: on mpix that call enters Go). */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* estimate returns the seconds per unit of runs that double until one takes a
 * millisecond (or 2^20 units). */
static double estimate(unit_fn fn, void *ctx)
{
    for (long k = 1;; k *= 2) {
        double t = now();
        fn(ctx, k);
        double s = now() - t;
        if (s >= 1e-3 || k >= 1 << 20)
            return s / k;
    }
}

/* timed_in runs up to iters units in nchunks chunks (at most CHUNKS), stopping after
 * the chunk that passes limit seconds, and returns the median over the chunks of the
 * seconds per unit. */
static double timed_in(unit_fn fn, void *ctx, long iters, double limit, int nchunks)
{
    double means[CHUNKS + 1], elapsed = 0;
    long chunk = iters > nchunks ? (iters + nchunks - 1) / nchunks : 1, done = 0;
    int n = 0;
    while (done < iters && elapsed <= limit && n <= CHUNKS) {
        long k = iters - done < chunk ? iters - done : chunk;
        double t = now();
        fn(ctx, k);
        double s = now() - t;
        means[n++] = s / k;
        done += k;
        elapsed += s;
    }
    return median(means, n);
}

static double timed(unit_fn fn, void *ctx, long iters, double limit) { return timed_in(fn, ctx, iters, limit, CHUNKS); }

/* row_single times one single-threaded row: estimate, count, warm-up, timed. */
static double row_single(unit_fn fn, void *ctx, long size, long base)
{
    fn(ctx, 1); /* first touch */
    double per = estimate(fn, ctx);
    long iters = iterations(size, base, per, LAT_BUDGET, 10);
    timed(fn, ctx, iters / 10, LAT_BUDGET / 2);
    return timed(fn, ctx, iters, 2 * LAT_BUDGET);
}

#if HAVE_EXT
/* errors_return makes the extension calls on win return their errors (on == 1) or
 * restores fatal errors (on == 0). */
static void errors_return(MPI_Win win, int on)
{
    MPI_Win_set_errhandler(win, on ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL);
}

static const char *errstr(int rc)
{
    static char s[MPI_MAX_ERROR_STRING];
    int len;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", rc);
    return s;
}

/* info_is says whether MPI_Win_get_info of win reports key as value. */
static int info_is(MPI_Win win, const char *key, const char *value)
{
    MPI_Info info;
    char got[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    MPI_Win_get_info(win, &info);
    MPI_Info_get(info, key, MPI_MAX_INFO_VAL, got, &flag);
    MPI_Info_free(&info);
    return flag && strcmp(got, value) == 0;
}
#endif

/* ---- threaded modes: scope and order ---- */

enum { U_FLUSH, U_BATCH };

typedef struct {
    MPI_Win win;
    int kind;       /* U_FLUSH: put + flush; U_BATCH: batch_n puts + flush */
    MPI_Aint disp;  /* this thread's slot */
    char src[SLOT]; /* this thread's origin buffer */
} tctx;

static void unit_put(void *p, long k)
{
    tctx *c = p;
    for (long i = 0; i < k; i++) {
        if (c->kind == U_FLUSH) {
            MPI_Put(c->src, 8, MPI_BYTE, 1, c->disp, 8, MPI_BYTE, c->win);
        } else {
            for (int j = 0; j < batch_n; j++)
                MPI_Put(c->src, 8, MPI_BYTE, 1, c->disp, 8, MPI_BYTE, c->win);
        }
        MPI_Win_flush(1, c->win);
    }
}

typedef struct {
    tctx c;
    int t, nthreads;
    double est, result;
} job;

static pthread_barrier_t tbar;
static job jobs[MAXTHREADS];

static void *worker(void *arg)
{
    job *j = arg;
    long base = 100000000; /* no cap: the budget decides */
    pthread_barrier_wait(&tbar);
    unit_put(&j->c, 1); /* first touch */
    j->est = estimate(unit_put, &j->c);
    pthread_barrier_wait(&tbar);
    double per = 0;
    for (int i = 0; i < j->nthreads; i++)
        if (jobs[i].est > per)
            per = jobs[i].est;
    /* the budget, not a base count: chunks of MT_BUDGET / MT_CHUNKS seconds */
    long iters = iterations(8, base, per, MT_BUDGET, j->c.kind == U_FLUSH ? 10 : 3);
    timed(unit_put, &j->c, iters / 10, MT_BUDGET / 2);
    pthread_barrier_wait(&tbar);
    j->result = timed_in(unit_put, &j->c, iters, 2 * MT_BUDGET, MT_CHUNKS);
    if (j->c.kind == U_BATCH)
        j->result /= batch_n;
    return NULL;
}

/* run_threads runs one threaded row at rank 0 on handle win (lock_all epoch opened
 * and closed on it) and returns the mean over the threads of seconds per put. */
static double run_threads(MPI_Win win, int kind, int nthreads)
{
    pthread_t tid[MAXTHREADS];
    MPI_Win_lock_all(0, win);
    pthread_barrier_init(&tbar, NULL, nthreads);
    for (int t = 0; t < nthreads; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].c.win = win, jobs[t].c.kind = kind, jobs[t].c.disp = (MPI_Aint)t * SLOT;
        memset(jobs[t].c.src, t + 1, SLOT);
        jobs[t].t = t, jobs[t].nthreads = nthreads;
    }
    for (int t = 1; t < nthreads; t++)
        pthread_create(&tid[t], NULL, worker, &jobs[t]);
    worker(&jobs[0]);
    for (int t = 1; t < nthreads; t++)
        pthread_join(tid[t], NULL);
    pthread_barrier_destroy(&tbar);
    MPI_Win_unlock_all(win);
    double sum = 0;
    for (int t = 0; t < nthreads; t++)
        sum += jobs[t].result;
    return sum / nthreads;
}

/* threads_ok says whether rank 0 may run n threads; notes it once when not. */
static int threads_ok(int n)
{
    static int said;
    if (n <= 1 || provided == MPI_THREAD_MULTIPLE)
        return 1;
    if (!said)
        note("rows with more than one thread skipped: MPI_Init_thread provided a level below MPI_THREAD_MULTIPLE");
    said = 1;
    return 0;
}

static MPI_Win allocate_window(MPI_Aint size, MPI_Info info, char **base)
{
    MPI_Win win;
    MPI_Win_allocate(size, 1, info, MPI_COMM_WORLD, base, &win);
    memset(*base, 0, size);
    return win;
}

static MPI_Info info_of(const char *k1, const char *v1, const char *k2, const char *v2)
{
    MPI_Info info;
    MPI_Info_create(&info);
    if (k1)
        MPI_Info_set(info, k1, v1);
    if (k2)
        MPI_Info_set(info, k2, v2);
    return info;
}

/* dup_thread_scope makes the thread-scope handle of win (mpix): MPI_WIN_NULL, with a
 * note, when the library cannot. */
static MPI_Win dup_thread_scope(MPI_Win win)
{
    MPI_Win dup = MPI_WIN_NULL;
#if HAVE_EXT
    MPI_Info info = info_of("mpi_win_scope", "thread", NULL, NULL);
    errors_return(win, 1);
    int rc = MPIX_Win_dup_with_info(win, info, &dup);
    errors_return(win, 0);
    MPI_Info_free(&info);
    if (rc != MPI_SUCCESS) {
        note("thread rows skipped: MPIX_Win_dup_with_info failed: %s", errstr(rc));
        return MPI_WIN_NULL;
    }
    if (!info_is(dup, "mpi_win_scope", "thread")) {
        note("thread rows skipped: MPI_Win_get_info of the MPIX_Win_dup_with_info handle does not report mpi_win_scope=thread");
        MPI_Win_free(&dup);
        return MPI_WIN_NULL;
    }
#else
    (void)win;
    note("thread rows skipped: MPIX_Win_dup_with_info is mpix's (built without mpix.h)");
#endif
    return dup;
}

static void scope_mode(void)
{
    char *base;
    MPI_Info info = info_of("mpi_win_scope", "process", NULL, NULL);
    MPI_Win win = allocate_window(MAXTHREADS * SLOT, info, &base);
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        MPI_Win dup = dup_thread_scope(win);
        for (int i = 0; i < nlist; i++) {
            int n = nthreads_list[i];
            if (!threads_ok(n))
                continue;
            row("rmascope process %d %.3f\n", n, run_threads(win, U_FLUSH, n) * 1e6);
            if (dup != MPI_WIN_NULL) {
                row("rmascope thread %d %.3f\n", n, run_threads(dup, U_FLUSH, n) * 1e6);
            }
        }
        if (dup != MPI_WIN_NULL)
            MPI_Win_free(&dup);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&win);
}

/* ordered is a handle with mpi_win_order=true: use is what rank 0 puts on (the
 * window created with the keys, or a dup of the plain window), created the window
 * created with them (both ranks; freed collectively). */
typedef struct {
    MPI_Win use, created;
    int dup;
} ordered;

/* ordered_window makes the handle for scope: a window created (collectively) with
 * mpi_win_order=true and mpi_win_scope=scope or, when MPI_Win_get_info of that one
 * does not report the keys back, mpix's MPIX_Win_dup_with_info of plain with them.
 * o->use is MPI_WIN_NULL, with why, when neither works (or the library is not mpix). */
static void ordered_window(ordered *o, const char *scope, MPI_Win plain, char *why, size_t whylen)
{
    char *base;
    MPI_Info info = info_of("mpi_win_order", "true", "mpi_win_scope", scope);
    o->created = allocate_window(MAXTHREADS * SLOT, info, &base);
    o->use = o->created;
    o->dup = 0;
    int ok = 1;
    if (rank == 0) {
#if HAVE_EXT
        if (!info_is(o->created, "mpi_win_order", "true") || !info_is(o->created, "mpi_win_scope", scope)) {
            MPI_Win d = MPI_WIN_NULL;
            errors_return(plain, 1);
            int rc = MPIX_Win_dup_with_info(plain, info, &d);
            errors_return(plain, 0);
            if (rc == MPI_SUCCESS && info_is(d, "mpi_win_order", "true") && info_is(d, "mpi_win_scope", scope)) {
                o->use = d, o->dup = 1;
            } else {
                snprintf(why, whylen,
                         "MPI_Win_get_info does not report the keys back on a window created with them, and %s%s",
                         rc == MPI_SUCCESS ? "neither does a MPIX_Win_dup_with_info handle" : "MPIX_Win_dup_with_info failed: ",
                         rc == MPI_SUCCESS ? "" : errstr(rc));
                if (d != MPI_WIN_NULL)
                    MPI_Win_free(&d);
                ok = 0;
            }
        }
#else
        (void)plain;
        snprintf(why, whylen, "mpi_win_order is the paper's proposal, which this library does not implement");
        ok = 0;
#endif
    }
    MPI_Info_free(&info);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        MPI_Win_free(&o->created);
        o->use = MPI_WIN_NULL;
    }
}

static void ordered_free(ordered *o)
{
    if (o->dup)
        MPI_Win_free(&o->use);
    if (o->created != MPI_WIN_NULL)
        MPI_Win_free(&o->created);
}

static void order_mode(void)
{
    char *base, why[2][512] = {"", ""};
    ordered ord, ordt;
    MPI_Win win = allocate_window(MAXTHREADS * SLOT, MPI_INFO_NULL, &base);
    ordered_window(&ord, "process", win, why[0], sizeof why[0]);
    ordered_window(&ordt, "thread", win, why[1], sizeof why[1]);
    if (ord.use == MPI_WIN_NULL && ordt.use == MPI_WIN_NULL && strcmp(why[0], why[1]) == 0)
        note("ordered and ordered+thread rows skipped: %s", why[0]);
    else {
        if (ord.use == MPI_WIN_NULL)
            note("ordered rows skipped: %s", why[0]);
        if (ordt.use == MPI_WIN_NULL)
            note("ordered+thread rows skipped: %s", why[1]);
    }
    if (ord.dup || ordt.dup)
        note("ordered rows: a window created with mpi_win_order=true does not report it back: the rows use MPIX_Win_dup_with_info handles");
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        for (int i = 0; i < nlist; i++) {
            int n = nthreads_list[i];
            if (!threads_ok(n))
                continue;
            row("rmaorder put+flush %d %.3f\n", n, run_threads(win, U_FLUSH, n) * 1e6);
            if (ord.use != MPI_WIN_NULL) {
                row("rmaorder ordered %d %.3f\n", n, run_threads(ord.use, U_BATCH, n) * 1e6);
            }
            if (ordt.use != MPI_WIN_NULL) {
                row("rmaorder ordered+thread %d %.3f\n", n, run_threads(ordt.use, U_BATCH, n) * 1e6);
            }
            row("rmaorder unordered %d %.3f\n", n, run_threads(win, U_BATCH, n) * 1e6);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    ordered_free(&ordt);
    ordered_free(&ord);
    MPI_Win_free(&win);
}

/* ---- windows mode ---- */

typedef struct {
    MPI_Win win;     /* where the operations go */
    MPI_Win lockwin; /* where the epoch is opened: win, or the parent of a memhandle window */
    MPI_Aint disp0;
    int n;
    char *src;
} wctx;

static void unit_putflush(void *p, long k)
{
    wctx *c = p;
    for (long i = 0; i < k; i++) {
        MPI_Put(c->src, c->n, MPI_BYTE, 1, c->disp0, c->n, MPI_BYTE, c->win);
        MPI_Win_flush(1, c->win);
    }
}

static long next_size(long size) { return size >= MAXSIZE ? MAXSIZE + 1 : size * 8 > MAXSIZE ? MAXSIZE : size * 8; }

/* sizes_rows prints the put+flush rows of one window at rank 0, in one shared-lock
 * epoch on c->lockwin; both ranks call it (the target waits in the barrier). */
static void sizes_rows(const char *flavour, wctx *c)
{
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, c->lockwin);
        for (long size = 8; size <= MAXSIZE; size = next_size(size)) {
            char h[32];
            c->n = (int)size;
            double per = row_single(unit_putflush, c, size, 10000);
            row("rmawin %s %s %.3f\n", flavour, human(size, h), per * 1e6);
        }
        MPI_Win_unlock(1, c->lockwin);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* region is target memory: MPI_Alloc_mem'd or malloc'd. */
static char *region_alloc(int malloced)
{
    void *p;
    if (malloced)
        p = malloc(MAXSIZE);
    else
        MPI_Alloc_mem(MAXSIZE, MPI_INFO_NULL, &p);
    memset(p, 0, MAXSIZE);
    return p;
}

static void region_free(char *p, int malloced)
{
    if (malloced)
        free(p);
    else
        MPI_Free_mem(p);
}

static void dynamic_rows(const char *flavour, int malloced, char *src)
{
    MPI_Win win;
    char *mem = region_alloc(malloced);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_attach(win, mem, MAXSIZE);
    wctx c = {win, win, 0, 0, src};
    if (rank == 1) {
        MPI_Aint a;
        MPI_Get_address(mem, &a);
        MPI_Send(&a, 1, MPI_AINT, 0, 0, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&c.disp0, 1, MPI_AINT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    sizes_rows(flavour, &c);
    MPI_Win_detach(win, mem);
    MPI_Win_free(&win);
    region_free(mem, malloced);
}

/* target_row: the target (rank 1) times fn on a 64 KiB MPI_Alloc_mem region and a
 * dynamic window, and prints "rmawin WHAT US"; both ranks call it. */
typedef struct {
    MPI_Win win;
    char *mem;
} rctx;

static void target_row(const char *what, unit_fn fn, MPI_Win win)
{
    if (rank == 1) {
        rctx c = {win, region_alloc(0)};
        row("rmawin %s %.3f\n", what, row_single(fn, &c, 8, 10000) * 1e6);
        region_free(c.mem, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* attach_row: the target's MPI_Win_attach + MPI_Win_detach of 64 KiB (every library). */
static void unit_attach(void *p, long k)
{
    rctx *c = p;
    for (long i = 0; i < k; i++) {
        MPI_Win_attach(c->win, c->mem, MAXSIZE);
        MPI_Win_detach(c->win, c->mem);
    }
}

static void attach_row(void)
{
    MPI_Win win;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    target_row("dynamic attach+detach 64 KiB", unit_attach, win);
    MPI_Win_free(&win);
}

#if HAVE_EXT
/* memhandle windows (mpix). The target registers its region and sends the handle
 * (size, then bytes; size -1 when registration failed). */
typedef struct {
    const void *mh;
    MPI_Win parent, win;
    char *src;
    int put;
} mctx;

static void unit_mhwin(void *p, long k)
{
    mctx *c = p;
    for (long i = 0; i < k; i++) {
        MPI_Win w;
        MPIX_Win_from_memhandle(c->mh, MAXSIZE, 1, MPI_INFO_NULL, 1, c->parent, &w);
        if (c->put) {
            MPI_Put(c->src, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, w);
            MPI_Win_flush(1, w);
        }
        MPI_Win_free(&w);
    }
}

/* on c->win, the parent window */
static void unit_register(void *p, long k)
{
    rctx *c = p;
    for (long i = 0; i < k; i++) {
        MPIX_Memhandle mh;
        int sz;
        MPIX_Memhandle_create(c->mem, MAXSIZE, MPI_INFO_NULL, c->win, &mh, &sz);
        MPIX_Memhandle_release(&mh, c->win);
    }
}


/* memhandle_rows runs the memhandle flavour; costs adds the creation cost rows.
 * It returns 0 when the library could not make the window (noted). */
static int memhandle_rows(const char *flavour, int malloced, char *src, int costs)
{
    MPI_Win parent;
    MPIX_Memhandle mh;
    int mhsize = -1, rc = MPI_SUCCESS;
    char why[MPI_MAX_ERROR_STRING] = "";
    char *mem = region_alloc(malloced);
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &parent);
    errors_return(parent, 1);
    if (rank == 1) {
        rc = MPIX_Memhandle_create(mem, MAXSIZE, MPI_INFO_NULL, parent, &mh, &mhsize);
        if (rc != MPI_SUCCESS)
            mhsize = -1;
        MPI_Send(&mhsize, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
        if (mhsize > 0)
            MPI_Send(&mh, mhsize, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        if (rc != MPI_SUCCESS)
            snprintf(why, sizeof why, "%s", errstr(rc));
        MPI_Send(why, MPI_MAX_ERROR_STRING, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&mhsize, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (mhsize > (int)sizeof mh) {
            fprintf(stderr, "rmaext: error: MPIX_Memhandle_create reported %d bytes, above MPIX_MAX_MEMHANDLE_SIZE\n", mhsize);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        if (mhsize > 0)
            MPI_Recv(&mh, mhsize, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(why, MPI_MAX_ERROR_STRING, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    int ok = mhsize > 0;
    if (rank == 0 && !ok)
        note("%s rows skipped: MPIX_Memhandle_create failed at the target: %s", flavour, why);
    MPI_Win win = MPI_WIN_NULL;
    if (rank == 0 && ok) {
        rc = MPIX_Win_from_memhandle(&mh, MAXSIZE, 1, MPI_INFO_NULL, 1, parent, &win);
        if (rc != MPI_SUCCESS) {
            note("%s rows skipped: MPIX_Win_from_memhandle failed: %s", flavour, errstr(rc));
            ok = 0;
        }
    }
    errors_return(parent, 0);
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (ok) {
        wctx c = {win, parent, 0, 0, src};
        sizes_rows(flavour, &c);
        if (rank == 0)
            MPI_Win_free(&win);
        if (costs) {
            if (rank == 0) {
                mctx m = {&mh, parent, MPI_WIN_NULL, src, 0};
                row("rmawin memhandle create+free %.3f\n", row_single(unit_mhwin, &m, 8, 10000) * 1e6);
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, parent);
                m.put = 1;
                row("rmawin memhandle create+put+flush+free 8 B %.3f\n", row_single(unit_mhwin, &m, 8, 10000) * 1e6);
                MPI_Win_unlock(1, parent);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            target_row("memhandle register+release 64 KiB", unit_register, parent);
        }
    }
    if (rank == 1 && mhsize > 0)
        MPIX_Memhandle_release(&mh, parent);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&parent);
    region_free(mem, malloced);
    return ok;
}
#endif

static void windows_mode(void)
{
    char *src = malloc(MAXSIZE);
    memset(src, 1, MAXSIZE);
    {
        char *base;
        MPI_Win win = allocate_window(MAXSIZE, MPI_INFO_NULL, &base);
        MPI_Barrier(MPI_COMM_WORLD);
        wctx c = {win, win, 0, 0, src};
        sizes_rows("allocate", &c);
        MPI_Win_free(&win);
    }
    dynamic_rows("dynamic", 0, src);
    dynamic_rows("dynamic-malloc", 1, src);
#if HAVE_EXT
    if (memhandle_rows("memhandle", 0, src, 1))
        memhandle_rows("memhandle-malloc", 1, src, 0);
    else
        note("memhandle-malloc rows skipped too");
#else
    note("memhandle rows skipped: memory handles (MPIX_Memhandle_create, MPIX_Win_from_memhandle) are mpix's");
#endif
    attach_row();
    free(src);
}

/* ---- main ---- */

static int parse_threads(const char *s)
{
    nlist = parse_ints(s, nthreads_list, MAXTHREADS, MAXTHREADS);
    return nlist > 0;
}

int main(int argc, char **argv)
{
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *what = argc > 1 ? argv[1] : "";
    int ok = size == 2 && (strcmp(what, "scope") == 0 || strcmp(what, "order") == 0 || strcmp(what, "windows") == 0);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    nlist = 0;
    for (int n = 1; n <= (cpus < 1 ? 1 : cpus) && nlist < 7; n *= 2)
        nthreads_list[nlist++] = n;
    for (int i = 2; ok && i < argc; i++) {
        if (strcmp(argv[i], "-threads") == 0 && i + 1 < argc)
            ok = parse_threads(argv[++i]);
        else if (strcmp(argv[i], "-batch") == 0 && i + 1 < argc)
            ok = (batch_n = atoi(argv[++i])) > 0;
        else
            ok = 0;
    }
    if (!ok) {
        if (rank == 0)
            fprintf(stderr, "usage: rmaext scope|order|windows [-threads 1,2,...] [-batch N] (2 processes)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(what, "scope") == 0)
        scope_mode();
    else if (strcmp(what, "order") == 0)
        order_mode();
    else
        windows_mode();
    MPI_Finalize();
    return 0;
}

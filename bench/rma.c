/* rma: one-sided communication between rank 0 (origin) and rank 1 (target), 2 processes.
 *
 *     rma lat FLAVOUR   latency of one operation + MPI_Win_flush, inside one
 *                       MPI_Win_lock(MPI_LOCK_SHARED) epoch: put, get, acc, get_acc by
 *                       size (8 B, 64 B, ... 256 KiB, 1 MiB), fop and cas at 8 B;
 *                       prints "rmalat OP SIZE US" ("rmalat put 4 KiB 0.125")
 *     rma bw FLAVOUR    bandwidth of put and get: windows of 64 operations, each window
 *                       followed by one MPI_Win_flush, same epoch and sizes;
 *                       prints "rmabw OP SIZE MBPS" (MB = 10^6 bytes)
 *     rma epochs        one 8-byte MPI_Put per epoch, allocated window: fence
 *                       (MPI_Win_fence, put, MPI_Win_fence: one fence per epoch, as
 *                       consecutive epochs share theirs) and PSCW (origin: start, put,
 *                       complete; target: post, wait); prints "rmaepoch KIND US"
 *
 * FLAVOUR is the window: allocate (MPI_Win_allocate), create (MPI_Win_create over
 * malloc'd memory), create-allocmem (MPI_Win_create over MPI_Alloc_mem memory, as OSU's
 * benchmarks do) or dynamic (MPI_Win_create_dynamic + MPI_Win_attach of MPI_Alloc_mem
 * memory; the target sends the address from MPI_Get_address with MPI_Send).
 *
 * The accumulates (acc: MPI_Accumulate, get_acc: MPI_Get_accumulate, fop:
 * MPI_Fetch_and_op) are MPI_SUM on MPI_LONG elements (SIZE/8 of them); cas is
 * MPI_Compare_and_swap of one MPI_LONG. The target waits in MPI_Barrier while the origin
 * runs a lock epoch.
 *
 * Each row first runs a few untimed operations to estimate their cost, then chooses its
 * iteration count: the size's base count (10000 operations, 200 windows or 10000
 * epochs up to 4 KiB, proportionally fewer above) cut to what fits in a time budget
 * (20 ms a latency row, 40 ms a bandwidth row, 100 ms an epoch row), at least 10
 * operations or epochs or 3 windows, after a tenth as many warm-up iterations. The
 * timed iterations run in 32 chunks, and a row reports the median over its chunks of
 * the mean time of an operation (window, epoch) in the chunk: this machine is shared,
 * and a process that loses its core for a scheduler tick would otherwise add
 * milliseconds to a mean of fractions of a microsecond. The loop also stops early,
 * after the chunk that passes twice the budget (a busy machine can make operations far
 * slower than the estimate). One launch takes a few seconds at most.
 *
 * Open MPI 4.x's osc/rdma crashes the target in MPI_Compare_and_swap on an
 * MPI_Win_allocate window between two processes of a node (open-mpi/ompi#11349,
 * #7967): built against Open MPI before 5, cas is skipped on allocated windows (no line).
 *
 * Built once against each MPI and run by bench/driver (figures.go). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>
#include "bench_util.h" /* iterations, median, human */

#define MAXSIZE (1 << 20)
#define LAT_BUDGET 0.02 /* seconds of timed operations a latency row (see the header) */
#define BW_BUDGET 0.04  /* seconds of timed windows a bandwidth row */
#define EPOCH_BUDGET 0.1 /* seconds of timed epochs an epoch row */
#define PER_WINDOW 64

static int rank;

typedef struct {
    MPI_Win win;
    char *base;     /* this process's window memory */
    void *mem;      /* what to free */
    int malloced;   /* mem came from malloc */
    int dynamic;    /* mem is attached to a dynamic window */
    MPI_Aint disp0; /* at the origin: the target displacement of the window's first byte */
} window;

static void open_window(window *w, const char *flavour, MPI_Aint size)
{
    memset(w, 0, sizeof *w);
    if (strcmp(flavour, "allocate") == 0) {
        MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win);
    } else if (strcmp(flavour, "create") == 0 || strcmp(flavour, "create-allocmem") == 0) {
        w->malloced = strcmp(flavour, "create") == 0;
        if (w->malloced)
            w->mem = malloc(size);
        else
            MPI_Alloc_mem(size, MPI_INFO_NULL, &w->mem);
        w->base = w->mem;
        MPI_Win_create(w->base, size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
    } else if (strcmp(flavour, "dynamic") == 0) {
        MPI_Alloc_mem(size, MPI_INFO_NULL, &w->mem);
        w->base = w->mem;
        w->dynamic = 1;
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        MPI_Win_attach(w->win, w->base, size);
        if (rank == 1) {
            MPI_Aint a;
            MPI_Get_address(w->base, &a);
            MPI_Send(&a, 1, MPI_AINT, 0, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&w->disp0, 1, MPI_AINT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        if (rank == 0)
            fprintf(stderr, "rma: unknown window flavour %s\n", flavour);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(w->base, 0, size);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void close_window(window *w)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (w->dynamic)
        MPI_Win_detach(w->win, w->base);
    MPI_Win_free(&w->win);
    if (w->malloced)
        free(w->mem);
    else if (w->mem)
        MPI_Free_mem(w->mem);
}

enum { PUT, GET, ACC, GACC, FOP, CAS };
static const char *opnames[] = {"put", "get", "acc", "get_acc", "fop", "cas"};

static char *buf, *res; /* origin and result buffers, MAXSIZE each */

/* issue starts one operation of n bytes (n/8 longs for the accumulates). */
static void issue(window *w, int op, int n)
{
    static long cmp = 0;
    switch (op) {
    case PUT: MPI_Put(buf, n, MPI_BYTE, 1, w->disp0, n, MPI_BYTE, w->win); break;
    case GET: MPI_Get(res, n, MPI_BYTE, 1, w->disp0, n, MPI_BYTE, w->win); break;
    case ACC: MPI_Accumulate(buf, n / 8, MPI_LONG, 1, w->disp0, n / 8, MPI_LONG, MPI_SUM, w->win); break;
    case GACC:
        MPI_Get_accumulate(buf, n / 8, MPI_LONG, res, n / 8, MPI_LONG, 1, w->disp0, n / 8, MPI_LONG, MPI_SUM, w->win);
        break;
    case FOP: MPI_Fetch_and_op(buf, res, MPI_LONG, 1, w->disp0, MPI_SUM, w->win); break;
    case CAS: MPI_Compare_and_swap(buf, &cmp, res, MPI_LONG, 1, w->disp0, w->win); break;
    }
}

/* batch runs k units of a row at the origin: k operations each followed by a flush
 * (latency), or k windows of PER_WINDOW operations then one flush (bandwidth). */
static void batch(window *w, int op, int n, int bw, long k)
{
    for (long i = 0; i < k; i++) {
        if (bw)
            for (int j = 0; j < PER_WINDOW; j++)
                issue(w, op, n);
        else
            issue(w, op, n);
        MPI_Win_flush(1, w->win);
    }
}

/* chunks times the units of one row in CHUNKS parts; see the header. */
#define CHUNKS 32
typedef struct {
    long iters, chunk, done;
    double limit, elapsed, means[CHUNKS + 1];
    int n;
} chunks;

static void chunks_start(chunks *c, long iters, double limit)
{
    c->iters = iters, c->limit = limit;
    c->chunk = iters > CHUNKS ? (iters + CHUNKS - 1) / CHUNKS : 1;
    c->done = 0, c->elapsed = 0, c->n = 0;
}

/* chunks_next is how many units the next chunk runs, 0 when the row is done: all its
 * iterations run, or the limit passed. */
static long chunks_next(chunks *c)
{
    if (c->done >= c->iters || c->elapsed > c->limit || c->n > CHUNKS)
        return 0;
    return c->iters - c->done < c->chunk ? c->iters - c->done : c->chunk;
}

static void chunks_add(chunks *c, long k, double seconds)
{
    c->means[c->n++] = seconds / k;
    c->done += k;
    c->elapsed += seconds;
}

/* timed runs up to iters units of a row at the origin and returns the median over its
 * chunks of the seconds per unit. */
static double timed(window *w, int op, int n, int bw, long iters, double limit)
{
    chunks c;
    chunks_start(&c, iters, limit);
    for (long k; (k = chunks_next(&c)) > 0;) {
        double t = MPI_Wtime();
        batch(w, op, n, bw, k);
        chunks_add(&c, k, MPI_Wtime() - t);
    }
    return median(c.means, c.n);
}

/* measure times one row at the origin and returns seconds per unit (operation or
 * window); the target waits in the barrier. */
static double measure(window *w, int op, int n, int bw)
{
    double per = 0, budget = bw ? BW_BUDGET : LAT_BUDGET;
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w->win);
        issue(w, op, n); /* first touch */
        MPI_Win_flush(1, w->win);
        per = timed(w, op, n, bw, bw ? 1 : 2, 1e9); /* the estimate */
        long iters = bw ? iterations(n, 200, per, budget, 3) : iterations(n, 10000, per, budget, 10);
        timed(w, op, n, bw, iters / 10, budget / 2); /* warm-up */
        per = timed(w, op, n, bw, iters, 2 * budget);
        MPI_Win_unlock(1, w->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return per;
}

/* next_size walks 8 B, 64 B, ... 256 KiB, then 1 MiB. */
static long next_size(long size) { return size >= MAXSIZE ? MAXSIZE + 1 : size * 8 > MAXSIZE ? MAXSIZE : size * 8; }

/* skip says whether this MPI cannot run op on this flavour (see the header). */
static int skip(const char *flavour, int op)
{
#if defined(OPEN_MPI) && defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5
    return op == CAS && strcmp(flavour, "allocate") == 0;
#else
    (void)flavour, (void)op;
    return 0;
#endif
}

static void sizes(const char *flavour, int bw)
{
    window w;
    open_window(&w, flavour, MAXSIZE);
    int last = bw ? GET : CAS;
    for (int op = PUT; op <= last; op++) {
        if (skip(flavour, op))
            continue;
        long max = op == FOP || op == CAS ? 8 : MAXSIZE;
        for (long size = 8; size <= max; size = next_size(size)) {
            double per = measure(&w, op, (int)size, bw);
            char h[32];
            if (rank == 0 && bw)
                printf("rmabw %s %s %.6g\n", opnames[op], human(size, h), (double)size * PER_WINDOW / per / 1e6);
            else if (rank == 0)
                printf("rmalat %s %s %.3f\n", opnames[op], human(size, h), per * 1e6);
        }
    }
    close_window(&w);
}

/* epoch runs one fence or PSCW epoch with an 8-byte put from rank 0. */
static void epoch(window *w, int pscw, MPI_Group peer)
{
    if (!pscw) {
        if (rank == 0)
            MPI_Put(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, w->win);
        MPI_Win_fence(0, w->win);
    } else if (rank == 0) {
        MPI_Win_start(peer, 0, w->win);
        MPI_Put(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, w->win);
        MPI_Win_complete(w->win);
    } else {
        MPI_Win_post(peer, 0, w->win);
        MPI_Win_wait(w->win);
    }
}

/* epochs_timed is timed for epochs, which both processes run: rank 0 times the chunks
 * and, between them (untimed), tells rank 1 whether to go on. */
static double epochs_timed(window *w, int pscw, MPI_Group peer, long iters, double limit)
{
    chunks c;
    chunks_start(&c, iters, limit);
    long k = chunks_next(&c);
    while (k > 0) {
        double t = MPI_Wtime();
        for (long i = 0; i < k; i++)
            epoch(w, pscw, peer);
        chunks_add(&c, k, MPI_Wtime() - t);
        k = chunks_next(&c);
        MPI_Bcast(&k, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    }
    return median(c.means, c.n);
}

static void epochs(void)
{
    window w;
    open_window(&w, "allocate", 4096);
    MPI_Group world, peer;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int other = 1 - rank;
    MPI_Group_incl(world, 1, &other, &peer);
    for (int pscw = 0; pscw <= 1; pscw++) {
        if (!pscw)
            MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win);
        double per = epochs_timed(&w, pscw, peer, 3, 1e9); /* the estimate */
        /* rank 0 picks the count: both processes must run the same epochs */
        long iters = iterations(8, 10000, per, EPOCH_BUDGET, 10);
        MPI_Bcast(&iters, 1, MPI_LONG, 0, MPI_COMM_WORLD);
        epochs_timed(&w, pscw, peer, iters / 10, EPOCH_BUDGET / 2); /* warm-up */
        per = epochs_timed(&w, pscw, peer, iters, 2 * EPOCH_BUDGET);
        if (!pscw)
            MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win);
        if (rank == 0)
            printf("rmaepoch %s %.3f\n", pscw ? "pscw" : "fence", per * 1e6);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Group_free(&peer);
    MPI_Group_free(&world);
    close_window(&w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *what = argc > 1 ? argv[1] : "";
    int ok = size == 2 && (strcmp(what, "epochs") == 0 ||
                           ((strcmp(what, "lat") == 0 || strcmp(what, "bw") == 0) && argc > 2));
    if (!ok) {
        if (rank == 0)
            fprintf(stderr, "usage: rma lat|bw allocate|create|create-allocmem|dynamic | rma epochs (2 processes)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    buf = malloc(MAXSIZE);
    res = malloc(MAXSIZE);
    for (long i = 0; i < MAXSIZE / 8; i++)
        ((long *)buf)[i] = 1; /* the accumulates add 1s */
    memset(res, 0, MAXSIZE);
    if (strcmp(what, "epochs") == 0)
        epochs();
    else
        sizes(argv[2], strcmp(what, "bw") == 0);
    free(buf);
    free(res);
    MPI_Finalize();
    return 0;
}

/* rma: one-sided communication between ranks 0 (origin) and 1 (target), the OSU way:
 * every operation followed by MPI_Win_flush inside one MPI_Win_lock(MPI_LOCK_SHARED)
 * epoch. Window memory comes from MPI_Alloc_mem (created and dynamic windows too, as
 * OSU's benchmarks do), except the "create-malloc" flavour (malloc'd memory).
 *
 *     rma ops               8-byte latency of put, get, acc (MPI_SUM, MPI_LONG),
 *                           get_acc, fop, cas per flavour: "rmaop FLAVOUR OP US"
 *     rma lat OP FLAVOUR    put or get latency by size, 8 B to 1 MiB (powers of 8,
 *                           then 1 MiB): "rmalat FLAVOUR SIZE US"
 *     rma bw OP FLAVOUR     put or get bandwidth, windows of 64 then one flush, to
 *                           1 MiB: "rmabw FLAVOUR SIZE MBPS"
 *     rma epochs            8-byte put in a fence epoch and in a PSCW epoch,
 *                           allocated window: "rmaepoch KIND US"
 *
 * Built once against each MPI and run by bench/driver (figures.go). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define MAXSIZE (1 << 20)

static int rank;

typedef struct {
    MPI_Win win;
    char *base;     /* this process's window memory */
    void *mem;      /* what to free */
    int malloced;   /* mem came from malloc */
    MPI_Aint disp0; /* the target's displacement of its first byte */
} window;

static void open_window(window *w, const char *flavour, MPI_Aint size)
{
    memset(w, 0, sizeof *w);
    if (strcmp(flavour, "allocate") == 0) {
        MPI_Win_allocate(size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win);
    } else if (strcmp(flavour, "create") == 0 || strcmp(flavour, "create-malloc") == 0) {
        w->malloced = strcmp(flavour, "create-malloc") == 0;
        if (w->malloced)
            w->mem = malloc(size);
        else
            MPI_Alloc_mem(size, MPI_INFO_NULL, &w->mem);
        w->base = w->mem;
        MPI_Win_create(w->base, size, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
    } else if (strcmp(flavour, "dynamic") == 0) {
        MPI_Alloc_mem(size, MPI_INFO_NULL, &w->mem);
        w->base = w->mem;
        MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win);
        MPI_Win_attach(w->win, w->base, size);
        MPI_Aint a;
        MPI_Get_address(w->base, &a);
        MPI_Bcast(&a, 1, MPI_AINT, 1, MPI_COMM_WORLD);
        w->disp0 = a;
    } else {
        fprintf(stderr, "rma: unknown flavour %s\n", flavour);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    memset(w->base, 0, size);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void close_window(window *w)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (w->disp0)
        MPI_Win_detach(w->win, w->base);
    MPI_Win_free(&w->win);
    if (w->malloced)
        free(w->mem);
    else if (w->mem)
        MPI_Free_mem(w->mem);
}

enum { PUT, GET, ACC, GACC, FOP, CAS };
static const char *opnames[] = {"put", "get", "acc", "get_acc", "fop", "cas"};

/* one issues operation op of n bytes (longs for the accumulates) and flushes. */
static void one(window *w, int op, char *buf, char *res, int n)
{
    long one = 1, cmp = 0;
    switch (op) {
    case PUT: MPI_Put(buf, n, MPI_BYTE, 1, w->disp0, n, MPI_BYTE, w->win); break;
    case GET: MPI_Get(buf, n, MPI_BYTE, 1, w->disp0, n, MPI_BYTE, w->win); break;
    case ACC: MPI_Accumulate(&one, 1, MPI_LONG, 1, w->disp0, 1, MPI_LONG, MPI_SUM, w->win); break;
    case GACC: MPI_Get_accumulate(&one, 1, MPI_LONG, res, 1, MPI_LONG, 1, w->disp0, 1, MPI_LONG, MPI_SUM, w->win); break;
    case FOP: MPI_Fetch_and_op(&one, res, MPI_LONG, 1, w->disp0, MPI_SUM, w->win); break;
    case CAS: MPI_Compare_and_swap(&one, &cmp, res, MPI_LONG, 1, w->disp0, w->win); break;
    }
    MPI_Win_flush(1, w->win);
}

/* latency times iters operations (after a tenth as many to warm up) on rank 0. */
static double latency(window *w, int op, char *buf, int n, long iters)
{
    char res[8];
    double t0 = 0;
    if (rank == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w->win);
        long warm = iters / 10;
        for (long i = 0; i < iters + warm; i++) {
            if (i == warm)
                t0 = MPI_Wtime();
            one(w, op, buf, res, n);
        }
        t0 = (MPI_Wtime() - t0) * 1e6 / iters;
        MPI_Win_unlock(1, w->win);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return t0;
}

/* next_size walks 8 B, 64 B, ... 256 KiB, then 1 MiB. */
static long next_size(long size) { return size >= MAXSIZE ? MAXSIZE + 1 : size * 8 > MAXSIZE ? MAXSIZE : size * 8; }

/* human writes a size as the summary shows it ("8 B", "4 KiB", "1 MiB"). */
static const char *human(long size, char *out)
{
    if (size >= 1 << 20)
        sprintf(out, "%ld MiB", size >> 20);
    else if (size >= 1 << 10)
        sprintf(out, "%ld KiB", size >> 10);
    else
        sprintf(out, "%ld B", size);
    return out;
}

static long iters_for(long size, long base)
{
    long it = size <= 4096 ? base : base * 4096 / size;
    return it < 20 ? 20 : it;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *what = argc > 1 ? argv[1] : "ops";
    char *buf = malloc(MAXSIZE);
    memset(buf, 1, MAXSIZE);
    if (strcmp(what, "ops") == 0) {
        const char *flavours[] = {"allocate", "create", "dynamic", "create-malloc"};
        for (int f = 0; f < 4; f++) {
            window w;
            open_window(&w, flavours[f], 4096);
            for (int op = PUT; op <= CAS; op++) {
                double us = latency(&w, op, buf, 8, 5000);
                if (rank == 0)
                    printf("rmaop %s %s %.3f\n", flavours[f], opnames[op], us);
            }
            close_window(&w);
        }
    } else if ((strcmp(what, "lat") == 0 || strcmp(what, "bw") == 0) && argc > 3) {
        int op = strcmp(argv[2], "get") == 0 ? GET : PUT;
        window w;
        open_window(&w, argv[3], MAXSIZE);
        for (long size = 8; size <= MAXSIZE; size = next_size(size)) {
            if (strcmp(what, "lat") == 0) {
                double us = latency(&w, op, buf, (int)size, iters_for(size, 10000));
                char h[32];
                if (rank == 0)
                    printf("rmalat %s %s %.3f\n", argv[3], human(size, h), us);
                continue;
            }
            long windows = iters_for(size, 400) / 4 + 5, per = 64;
            double t0 = 0;
            if (rank == 0) {
                MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win);
                for (long i = 0; i < windows + 2; i++) {
                    if (i == 2)
                        t0 = MPI_Wtime();
                    for (long k = 0; k < per; k++) {
                        if (op == PUT)
                            MPI_Put(buf, (int)size, MPI_BYTE, 1, w.disp0, (int)size, MPI_BYTE, w.win);
                        else
                            MPI_Get(buf, (int)size, MPI_BYTE, 1, w.disp0, (int)size, MPI_BYTE, w.win);
                    }
                    MPI_Win_flush(1, w.win);
                }
                double s = MPI_Wtime() - t0;
                MPI_Win_unlock(1, w.win);
                char h[32];
                printf("rmabw %s %s %.1f\n", argv[3], human(size, h), (double)size * per * windows / s / 1e6);
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
        close_window(&w);
    } else if (strcmp(what, "epochs") == 0) {
        window w;
        open_window(&w, "allocate", 4096);
        long iters = 5000;
        MPI_Group world, peer;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        int other = 1 - rank;
        MPI_Group_incl(world, 1, &other, &peer);
        double t0 = 0;
        MPI_Win_fence(0, w.win);
        for (long i = 0; i < iters + iters / 10; i++) {
            if (i == iters / 10)
                t0 = MPI_Wtime();
            if (rank == 0)
                MPI_Put(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, w.win);
            MPI_Win_fence(0, w.win);
        }
        if (rank == 0)
            printf("rmaepoch fence %.3f\n", (MPI_Wtime() - t0) * 1e6 / iters);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win);
        MPI_Barrier(MPI_COMM_WORLD);
        for (long i = 0; i < iters + iters / 10; i++) {
            if (i == iters / 10)
                t0 = MPI_Wtime();
            if (rank == 0) {
                MPI_Win_start(peer, 0, w.win);
                MPI_Put(buf, 8, MPI_BYTE, 1, 0, 8, MPI_BYTE, w.win);
                MPI_Win_complete(w.win);
            } else {
                MPI_Win_post(peer, 0, w.win);
                MPI_Win_wait(w.win);
            }
        }
        if (rank == 0)
            printf("rmaepoch pscw %.3f\n", (MPI_Wtime() - t0) * 1e6 / iters);
        MPI_Group_free(&peer);
        MPI_Group_free(&world);
        close_window(&w);
    } else {
        if (rank == 0)
            fprintf(stderr, "usage: rma ops | lat put|get FLAVOUR | bw put|get FLAVOUR | epochs\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    free(buf);
    MPI_Finalize();
    return 0;
}

/* netrma: puts and gets between every pair of ranks on every window flavour, in
 * passive-target (lock, flush) and fence epochs, with contiguous and strided data
 * from 8 bytes to 1 MiB, request forms, accumulates on the same window, and
 * displacements outside the window. Run with MPIX_SHM=0 it drives the inter-node path:
 * fi_write and fi_read where the libfabric provider offers RMA (rma/net.go), active
 * messages otherwise (MPIX_OFI_RMA=0), dynamic windows always through active
 * messages. Every rank checks the bytes it reads back and the bytes others wrote into
 * its window. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "mpix_test.h"

#define WIN (2 * 1024 * 1024 + 4096)
#define BIG (1 << 20)

static int rank, size;

static unsigned char pat(int writer, int target, long i, int round)
{
    return (unsigned char)(writer * 31 + target * 7 + i * 13 + round * 101 + (i >> 8));
}

typedef struct {
    MPI_Win win;
    unsigned char *base;
    void *mem;
    int malloced, dynamic;
    MPI_Aint *disp0; /* per rank: displacement of its first byte (dynamic: address) */
} window;

static void open_window(window *w, const char *flavour)
{
    memset(w, 0, sizeof *w);
    w->disp0 = calloc((size_t)size, sizeof(MPI_Aint));
    if (strcmp(flavour, "allocate") == 0) {
        CHECK_OK(MPI_Win_allocate(WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win));
    } else if (strcmp(flavour, "shared") == 0) {
        CHECK_OK(MPI_Win_allocate_shared(WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->base, &w->win));
    } else if (strcmp(flavour, "create-malloc") == 0) {
        w->mem = w->base = malloc(WIN);
        w->malloced = 1;
        CHECK_OK(MPI_Win_create(w->base, WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
    } else if (strcmp(flavour, "create") == 0) {
        CHECK_OK(MPI_Alloc_mem(WIN, MPI_INFO_NULL, &w->mem));
        w->base = w->mem;
        CHECK_OK(MPI_Win_create(w->base, WIN, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
    } else if (strcmp(flavour, "dynamic") == 0) {
        CHECK_OK(MPI_Alloc_mem(WIN, MPI_INFO_NULL, &w->mem));
        w->base = w->mem;
        w->dynamic = 1;
        CHECK_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w->win));
        CHECK_OK(MPI_Win_attach(w->win, w->base, WIN));
        MPI_Aint a;
        CHECK_OK(MPI_Get_address(w->base, &a));
        CHECK_OK(MPI_Allgather(&a, 1, MPI_AINT, w->disp0, 1, MPI_AINT, MPI_COMM_WORLD));
    } else {
        CHECK(0, "unknown flavour %s", flavour);
    }
    MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN);
    memset(w->base, 0, WIN);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void close_window(window *w)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (w->dynamic)
        CHECK_OK(MPI_Win_detach(w->win, w->base));
    CHECK_OK(MPI_Win_free(&w->win));
    if (w->malloced)
        free(w->mem);
    else if (w->mem)
        MPI_Free_mem(w->mem);
    free(w->disp0);
}

/* Each rank owns a slice of every window: writer r writes into [slot(r), slot(r)+BIG/...) */
static MPI_Aint slot(int writer) { return (MPI_Aint)writer * (WIN / 4); }

static const int sizes[] = {8, 64, 65, 4096, 65536 + 3, BIG / 2};

/* contiguous: rank puts into every other rank (and itself) under a shared lock, then
 * reads back with get; the target checks after a barrier. */
static void contiguous(window *w, int round)
{
    unsigned char *src = malloc(BIG), *dst = malloc(BIG);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        MPI_Aint off = slot(rank) + (MPI_Aint)k * 3; /* unaligned */
        for (int t = 0; t < size; t++) {
            for (long i = 0; i < n; i++)
                src[i] = pat(rank, t, i, round + (int)k);
            CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
            CHECK_OK(MPI_Put(src, n, MPI_BYTE, t, w->disp0[t] + off, n, MPI_BYTE, w->win));
            CHECK_OK(MPI_Win_flush(t, w->win));
            memset(dst, 0xee, (size_t)n);
            CHECK_OK(MPI_Get(dst, n, MPI_BYTE, t, w->disp0[t] + off, n, MPI_BYTE, w->win));
            CHECK_OK(MPI_Win_unlock(t, w->win));
            for (long i = 0; i < n; i++)
                CHECK(dst[i] == src[i], "round %d: rank %d read %d bytes back from %d: byte %ld is %d, want %d",
                      round, rank, n, t, i, dst[i], src[i]);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        for (int wr = 0; wr < size; wr++) {
            MPI_Aint o = slot(wr) + (MPI_Aint)k * 3;
            for (long i = 0; i < n; i++)
                CHECK(w->base[o + i] == pat(wr, rank, i, round + (int)k),
                      "round %d: rank %d's window, %d bytes from %d: byte %ld is %d, want %d", round, rank, n,
                      wr, i, w->base[o + i], pat(wr, rank, i, round + (int)k));
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(src);
    free(dst);
}

/* strided: a vector type at the target (few long runs, and many short ones), and a
 * strided origin for get, in a fence epoch; request forms under lock_all. */
static void strided(window *w, int round)
{
    const int counts[][2] = {{4, 1000}, {200, 8}}; /* blocks, block length */
    for (int c = 0; c < 2; c++) {
        int nb = counts[c][0], bl = counts[c][1], stride = bl + 5;
        MPI_Datatype vec;
        CHECK_OK(MPI_Type_vector(nb, bl, stride, MPI_BYTE, &vec));
        CHECK_OK(MPI_Type_commit(&vec));
        int n = nb * bl, t = (rank + 1) % size;
        unsigned char *src = malloc((size_t)n), *dst = malloc((size_t)nb * stride);
        for (long i = 0; i < n; i++)
            src[i] = pat(rank, t, i, round + c);
        MPI_Aint off = slot(rank) + 7;
        CHECK_OK(MPI_Win_fence(0, w->win));
        CHECK_OK(MPI_Put(src, n, MPI_BYTE, t, w->disp0[t] + off, 1, vec, w->win));
        CHECK_OK(MPI_Win_fence(0, w->win));
        memset(dst, 0, (size_t)nb * stride);
        CHECK_OK(MPI_Get(dst, 1, vec, t, w->disp0[t] + off, 1, vec, w->win));
        CHECK_OK(MPI_Win_fence(0, w->win));
        for (int b = 0; b < nb; b++)
            for (int i = 0; i < bl; i++)
                CHECK(dst[b * stride + i] == src[b * bl + i], "strided %d: block %d byte %d", c, b, i);
        /* request forms */
        CHECK_OK(MPI_Win_lock_all(0, w->win));
        MPI_Request rq[2];
        for (long i = 0; i < n; i++)
            src[i] = pat(rank, t, i, round + c + 50);
        CHECK_OK(MPI_Rput(src, n, MPI_BYTE, t, w->disp0[t] + off, 1, vec, w->win, &rq[0]));
        CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Win_flush(t, w->win));
        unsigned char *back = malloc((size_t)n);
        CHECK_OK(MPI_Rget(back, n, MPI_BYTE, t, w->disp0[t] + off, 1, vec, w->win, &rq[1]));
        CHECK_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Win_unlock_all(w->win));
        CHECK(memcmp(back, src, (size_t)n) == 0, "strided %d: Rget differs from Rput", c);
        free(back);
        free(src);
        free(dst);
        MPI_Type_free(&vec);
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

/* accumulates beside puts: every rank adds into one counter on rank 0 and puts a
 * marker beside it, flushes, and rank 0 checks the sum. */
static void accumulates(window *w)
{
    MPI_Aint at = w->disp0[0] + WIN - 64;
    long one = rank + 1, marker = 1000 + rank;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w->win));
    for (int i = 0; i < 10; i++)
        CHECK_OK(MPI_Accumulate(&one, 1, MPI_LONG, 0, at, 1, MPI_LONG, MPI_SUM, w->win));
    CHECK_OK(MPI_Put(&marker, 1, MPI_LONG, 0, at + 8 * (1 + rank % 6), 1, MPI_LONG, w->win));
    CHECK_OK(MPI_Win_unlock(0, w->win));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        long sum;
        memcpy(&sum, w->base + WIN - 64, 8);
        long want = 10L * size * (size + 1) / 2;
        CHECK(sum == want, "accumulated %ld, want %ld", sum, want);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* out of range: the origin refuses before anything moves. */
static void range(window *w)
{
    if (w->dynamic)
        return; /* the target checks a dynamic window's addresses */
    long v = 1;
    int t = (rank + 1) % size;
    CHECK_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, w->win));
    CHECK_CLASS(MPI_Put(&v, 1, MPI_LONG, t, WIN - 4, 1, MPI_LONG, w->win), MPI_ERR_RMA_RANGE);
    CHECK_CLASS(MPI_Get(&v, 1, MPI_LONG, t, WIN, 1, MPI_LONG, w->win), MPI_ERR_RMA_RANGE);
    CHECK_OK(MPI_Win_unlock(t, w->win));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size <= 4, "at most 4 ranks (slots of the window)");
    const char *flavours[] = {"allocate", "create", "create-malloc", "shared", "dynamic"};
    for (int f = 0; f < 5; f++) {
        if (argc > 1 && strcmp(argv[1], flavours[f]) != 0)
            continue;
        window w;
        open_window(&w, flavours[f]);
        contiguous(&w, f * 10);
        strided(&w, f * 10);
        accumulates(&w);
        range(&w);
        close_window(&w);
        if (rank == 0)
            printf("netrma: %s ok\n", flavours[f]);
    }
    MPI_Finalize();
    return 0;
}

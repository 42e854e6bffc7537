/* Helpers shared by the one-sided (RMA) tests: a window of any flavour over the same
 * byte layout, so that one program runs its operations on every flavour.
 *
 * Six kinds cover the four flavours, with both kinds of user memory where the user
 * gives it (plain malloc, and MPI_Alloc_mem, which an implementation may place in
 * memory that other processes can map):
 *   create          MPI_Win_create over malloc'd memory
 *   create_allocmem MPI_Win_create over MPI_Alloc_mem memory
 *   allocate        MPI_Win_allocate
 *   shared          MPI_Win_allocate_shared
 *   dynamic         MPI_Win_create_dynamic + MPI_Win_attach of malloc'd memory
 *   dynamic_allocmem the same over MPI_Alloc_mem memory
 * rma_disp() turns a byte offset in a rank's window into the target displacement the
 * operations take: offset / disp_unit, or on a dynamic window the attached address
 * plus the offset (every rank's address is exchanged at creation).
 *
 * Environment: MPIX_RMA_STRICT=1 turns on the assertions where MPICH (the reference
 * the tests are validated against) deviates from the standard; MPIX_RMA_STRICT_INFO=1
 * the ones on info values an implementation may ignore. mpix's ctests set both. */
#ifndef RMA_UTIL_H
#define RMA_UTIL_H
#include <stdint.h>
#include "mpix_test.h"

enum {
    RMA_CREATE,
    RMA_CREATE_ALLOCMEM,
    RMA_ALLOCATE,
    RMA_SHARED,
    RMA_DYNAMIC,
    RMA_DYNAMIC_ALLOCMEM,
    RMA_NKINDS
};

static const char *const rma_kind_name[RMA_NKINDS] = {
    "create", "create_allocmem", "allocate", "shared", "dynamic", "dynamic_allocmem",
};

static const int rma_kind_flavor[RMA_NKINDS] = {
    MPI_WIN_FLAVOR_CREATE,  MPI_WIN_FLAVOR_CREATE,  MPI_WIN_FLAVOR_ALLOCATE,
    MPI_WIN_FLAVOR_SHARED,  MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_DYNAMIC,
};

typedef struct {
    int kind, rank, nproc;
    MPI_Comm comm;
    MPI_Win win;
    unsigned char *base; /* this process's window memory (NULL when size is 0) */
    MPI_Aint size;
    int disp_unit;
    MPI_Aint *tbase; /* per rank: the displacement of that rank's byte 0 */
    void *mem;       /* memory the test owns (create, dynamic) */
    int allocmem;    /* mem came from MPI_Alloc_mem */
} rma_win;

static inline int rma_env(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && strcmp(v, "1") == 0;
}

static inline int rma_strict(void) { return rma_env("MPIX_RMA_STRICT"); }
static inline int rma_strict_info(void) { return rma_env("MPIX_RMA_STRICT_INFO"); }

/* CHECK_CLASS_MPICH runs an MPI call that must fail with error class want; where
 * MPICH 4.0.2 (the reference) returns the class mpich instead, that is accepted unless
 * MPIX_RMA_STRICT=1. Returns the class. */
#define CHECK_CLASS_MPICH(call, want, mpich)                                                  \
    do {                                                                                      \
        int rc_ = (call);                                                                     \
        int cls_ = mpix_test_class(rc_);                                                      \
        CHECK(cls_ == (want) || (!rma_strict() && cls_ == (mpich)), "%s returned class %d, want %d%s", #call, \
              cls_, (want), rma_strict() ? " (MPIX_RMA_STRICT)" : " (or MPICH's " #mpich ")");             \
    } while (0)

/* rma_open makes a window of the given kind over comm with size bytes on this process
 * (size may differ between processes, and be 0) and disp_unit (dynamic windows: 1). */
static inline void rma_open(rma_win *w, int kind, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm)
{
    memset(w, 0, sizeof *w);
    w->kind = kind;
    w->comm = comm;
    w->size = size;
    w->disp_unit = disp_unit;
    MPI_Comm_rank(comm, &w->rank);
    MPI_Comm_size(comm, &w->nproc);
    w->tbase = calloc(w->nproc, sizeof(MPI_Aint));
    switch (kind) {
    case RMA_CREATE:
    case RMA_DYNAMIC:
        w->mem = size > 0 ? malloc(size) : NULL;
        break;
    case RMA_CREATE_ALLOCMEM:
    case RMA_DYNAMIC_ALLOCMEM:
        if (size > 0)
            CHECK_OK(MPI_Alloc_mem(size, MPI_INFO_NULL, &w->mem));
        w->allocmem = 1;
        break;
    }
    switch (kind) {
    case RMA_CREATE:
    case RMA_CREATE_ALLOCMEM:
        w->base = w->mem;
        CHECK_OK(MPI_Win_create(w->base, size, disp_unit, info, comm, &w->win));
        break;
    case RMA_ALLOCATE:
        CHECK_OK(MPI_Win_allocate(size, disp_unit, info, comm, &w->base, &w->win));
        break;
    case RMA_SHARED:
        CHECK_OK(MPI_Win_allocate_shared(size, disp_unit, info, comm, &w->base, &w->win));
        break;
    default: {
        MPI_Aint addr = 0;
        w->disp_unit = 1;
        w->base = w->mem;
        CHECK_OK(MPI_Win_create_dynamic(info, comm, &w->win));
        if (size > 0) {
            CHECK_OK(MPI_Win_attach(w->win, w->base, size));
            CHECK_OK(MPI_Get_address(w->base, &addr));
        }
        CHECK_OK(MPI_Allgather(&addr, 1, MPI_AINT, w->tbase, 1, MPI_AINT, comm));
    }
    }
    if (size == 0)
        w->base = NULL;
}

/* rma_close frees the window (collective): every process must have closed its epochs. */
static inline void rma_close(rma_win *w)
{
    if (rma_kind_flavor[w->kind] == MPI_WIN_FLAVOR_DYNAMIC) {
        /* nobody may reach the memory once it is detached */
        CHECK_OK(MPI_Barrier(w->comm));
        if (w->size > 0)
            CHECK_OK(MPI_Win_detach(w->win, w->mem));
    }
    CHECK_OK(MPI_Win_free(&w->win));
    CHECK(w->win == MPI_WIN_NULL, "MPI_Win_free left the handle %#x", (unsigned)w->win);
    if (w->mem != NULL) {
        if (w->allocmem)
            CHECK_OK(MPI_Free_mem(w->mem));
        else
            free(w->mem);
    }
    free(w->tbase);
    memset(w, 0, sizeof *w);
}

/* rma_disp is the target displacement of byte off of rank's window. */
static inline MPI_Aint rma_disp(const rma_win *w, int rank, MPI_Aint off)
{
    CHECK(off % w->disp_unit == 0, "offset %ld is not a multiple of the displacement unit %d", (long)off,
          w->disp_unit);
    return w->tbase[rank] + off / w->disp_unit;
}

/* rma_local_begin/end bracket direct loads and stores on the process's own window
 * memory outside any other epoch (an exclusive lock on itself). */
static inline void rma_local_begin(const rma_win *w) { CHECK_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->rank, 0, w->win)); }
static inline void rma_local_end(const rma_win *w) { CHECK_OK(MPI_Win_unlock(w->rank, w->win)); }

/* rma_first_diff returns the first index where a and b differ, or -1. */
static inline long rma_first_diff(const void *a, const void *b, long n)
{
    const unsigned char *x = a, *y = b;
    if (memcmp(x, y, n) == 0)
        return -1;
    for (long i = 0; i < n; i++)
        if (x[i] != y[i])
            return i;
    return -1;
}
#endif

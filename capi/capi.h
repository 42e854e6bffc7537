/* The C side of mpix's boundary: the per-thread context and the helpers Go calls to
 * run user callbacks. Included by the generated shim and by every cgo file of capi. */
#ifndef MPIX_CAPI_H
#define MPIX_CAPI_H

#include <stdint.h>
#include <stdlib.h>
#include "mpi.h"

/* mpix_ctx is one OS thread's context, kept in C thread-local storage because Go has
 * no thread-local storage of its own. The shim passes it down with every call so that
 * per-thread state (threadcomm rank, RMA thread scope, VCI hints) costs no lookup. */
typedef struct mpix_ctx {
    uint64_t serial;        /* unique per thread, never reused; 0 is never handed out */
    int32_t threadcomm_thread; /* thread index in the active threadcomm, -1 if none */
    int32_t vci_hint;          /* VCI this thread prefers, -1 if none */
    uint64_t threadcomm_key;   /* activation key of the active threadcomm, 0 if none */
    void *tc_act;              /* mpix_tc_act * when its threads' messages run in C (tcfast.c) */
    MPI_Comm tc_handle;        /* the handle of that threadcomm */
    /* The seat (tcfast.c) this thread takes in that threadcomm's reductions. It stays
     * after the finish, with the activation it belongs to, so that the next region
     * gives the thread the same seat, and the same slice of each result, whatever its
     * rank then: its slice stays in its own cache. */
    int32_t tc_seat;
    void *tc_seat_act;
} mpix_ctx;

/* Thread-local state of the C paths uses the initial-exec model: the general one costs
 * a __tls_get_addr call per access (5% of a self-loop message), and the library needs
 * static TLS anyway (Go's runtime does). */
#define MPIX_TLS __thread __attribute__((tls_model("initial-exec")))
/* The calling thread's context. */
extern MPIX_TLS mpix_ctx *mpix_tls_ctx;
mpix_ctx *mpix_ctx_new(void);

static inline mpix_ctx *mpix_ctx_get(void)
{
    mpix_ctx *c = mpix_tls_ctx;
    if (__builtin_expect(c == NULL, 0))
        c = mpix_ctx_new();
    return c;
}

/* Callbacks into user code. */
void mpix_call_comm_errhandler(void *fn, MPI_Comm comm, int code);
void mpix_call_session_errhandler(void *fn, MPI_Session session, int code);
void mpix_flush_stdio(void);

#endif

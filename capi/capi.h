/* The C side of mpix's boundary: the per-thread context and the helpers Go calls to
 * run user callbacks. Included by the generated shim and by every cgo file of capi. */
#ifndef MPIX_CAPI_H
#define MPIX_CAPI_H

#include <stdint.h>
#include <stdlib.h>
#include "mpi.h"
#include "threadcomm.h"

/* mpix_ctx is one OS thread's context, kept in C thread-local storage because Go has
 * no thread-local storage of its own. The shim passes it down with every call so that
 * per-thread state (threadcomm rank, RMA thread scope, VCI hints) costs no lookup. */
typedef struct mpix_ctx {
    uint64_t serial;        /* unique per thread, never reused; 0 is never handed out */
    int32_t vci_hint;          /* VCI this thread prefers, -1 if none */
    mpix_tc_self *tc;          /* this thread's threadcomm state (threadcomm.h) */
} mpix_ctx;

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

/* Calls into user code (callbacks.c). */
void mpix_call_comm_errhandler(void *fn, MPI_Comm comm, int code);
void mpix_call_session_errhandler(void *fn, MPI_Session session, int code);
void mpix_call_win_errhandler(void *fn, MPI_Win win, int code);
void mpix_call_file_errhandler(void *fn, uintptr_t file, int code);
void mpix_call_user_op(void *fn, void *in, void *inout, int len, MPI_Datatype dt);
void mpix_call_user_op_c(void *fn, void *in, void *inout, MPI_Count len, MPI_Datatype dt);
int mpix_attr_copy(void *fn, int obj, int keyval, uintptr_t extra, uintptr_t in, uintptr_t *out, int *flag);
int mpix_attr_delete(void *fn, int obj, int keyval, uintptr_t val, uintptr_t extra);
int mpix_call_grequest_query(void *fn, uintptr_t extra, MPI_Status *out);
int mpix_call_grequest_free(void *fn, uintptr_t extra);
int mpix_call_grequest_cancel(void *fn, uintptr_t extra, int complete);

void mpix_flush_stdio(void);

/* The handler that names the MPI call of a memory fault in the library's C (fault.c). */
void mpix_fault_init(int rank);

/* mpix_fast_call is the MPI call whose C fast path this thread is running (NULL
 * outside one): the shim sets it around mpix_fast_* and dispatch.c clears it while a
 * fast path is in Go, so that fault.c's handler tells a fault of the library's C by
 * one thread-local read (async-signal-safe; no unwinding in the handler). */
extern MPIX_TLS const char *mpix_fast_call;

#endif

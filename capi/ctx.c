/* Thread contexts, callbacks into user code, and the data symbols of MPICH's ABI. */
#include <pthread.h>
#include <stdio.h>
#include "capi.h"

__thread mpix_ctx *mpix_tls_ctx;

static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;
static uint64_t ctx_serial;

static void ctx_release(void *p)
{
    free(p);
}

static void ctx_key_init(void)
{
    pthread_key_create(&ctx_key, ctx_release);
}

/* mpix_ctx_new makes the calling thread's context on its first MPI call; it is freed
 * when the thread exits. */
mpix_ctx *mpix_ctx_new(void)
{
    mpix_ctx *c = calloc(1, sizeof *c);
    if (c == NULL)
        abort();
    c->serial = __atomic_add_fetch(&ctx_serial, 1, __ATOMIC_RELAXED);
    c->threadcomm_rank = -1;
    c->vci_hint = -1;
    pthread_once(&ctx_once, ctx_key_init);
    pthread_setspecific(ctx_key, c);
    mpix_tls_ctx = c;
    return c;
}

void mpix_call_comm_errhandler(void *fn, MPI_Comm comm, int code)
{
    ((MPI_Comm_errhandler_function *)fn)(&comm, &code);
}

void mpix_flush_stdio(void)
{
    fflush(NULL);
}

/* Thread contexts and process-wide setup at load time. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "capi.h"

MPIX_TLS mpix_ctx *mpix_tls_ctx;

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
    c->tc = &mpix_tc_tls;
    c->vci_hint = -1;
    pthread_once(&ctx_once, ctx_key_init);
    pthread_setspecific(ctx_key, c);
    mpix_tls_ctx = c;
    return c;
}

void mpix_flush_stdio(void)
{
    fflush(NULL);
}

/* Debian's libfabric links libinfinipath, whose load-time constructor installs its own
 * SIGSEGV/SIGBUS/... handler that prints a backtrace and exits with status 1, even in
 * programs that never use its hardware. A crashing rank must die by its signal (the
 * launcher and the user's debugger rely on it), so before the Go runtime installs its
 * handlers (which chain to whatever is there), mpix puts back the default action for
 * handlers that belong to that library, and only those. */
__attribute__((constructor(101))) static void mpix_drop_foreign_crash_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
    for (unsigned i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction sa;
        if (sigaction(sigs[i], NULL, &sa) != 0)
            continue;
        void *h = (sa.sa_flags & SA_SIGINFO) ? (void *)sa.sa_sigaction : (void *)sa.sa_handler;
        if (h == (void *)SIG_DFL || h == (void *)SIG_IGN)
            continue;
        Dl_info info;
        if (dladdr(h, &info) && info.dli_fname && strstr(info.dli_fname, "libinfinipath"))
            signal(sigs[i], SIG_DFL);
    }
}

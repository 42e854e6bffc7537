/* A memory fault in the library's C code (a fast path copying from or into a user
 * buffer that is not memory) names the MPI call in one line before the process dies
 * of it, as a segfault, so that the launcher reports signal 11.
 *
 * The handler is chained in front of Go's (which forwards faults outside Go code to
 * the handler the program had before the library loaded), and only if Go's is the one
 * in place at MPI_Init: a program that installed its own keeps it alone. It claims
 * only a real fault (si_code > 0) on a thread inside a C fast path, which the shim
 * marks in mpix_fast_call (capi.h); anything else (a fault in Go code, which Go turns
 * into a panic that capi/errors.go's faulted reports; the program's own segfault; a
 * SIGSEGV sent with kill) goes to the previous handler as the kernel would have
 * delivered it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include "capi.h"

MPIX_TLS const char *mpix_fast_call;

static struct sigaction prev_segv, prev_bus;
static int installed;
static int world_rank = -1;

/* handler_addr is the code address of a disposition: its handler, or NULL for
 * SIG_DFL and SIG_IGN. */
static void *handler_addr(const struct sigaction *sa)
{
    if (sa->sa_handler == SIG_DFL || sa->sa_handler == SIG_IGN)
        return NULL;
    return (sa->sa_flags & SA_SIGINFO) ? (void *)sa->sa_sigaction : (void *)sa->sa_handler;
}

/* in_libmpix reports whether code address pc lies in this library (Go's runtime
 * included: it is linked into libmpix). */
static int in_libmpix(const void *pc)
{
    Dl_info self, d;
    if (pc == NULL || !dladdr((void *)mpix_fault_init, &self) || !dladdr(pc, &d))
        return 0;
    return d.dli_fbase == self.dli_fbase;
}

/* chain delivers the signal to the previous disposition as the kernel would have:
 * default and ignore first (whatever SA_SIGINFO says), the handler with its own mask
 * added to the interrupted thread's (and the signal itself unless SA_NODEFER), the
 * disposition reset first under SA_RESETHAND. */
static void chain(struct sigaction *prev, int sig, siginfo_t *si, void *uc)
{
    int fault = si->si_code > 0;
    if (prev->sa_handler == SIG_IGN && !fault)
        return; /* a sent signal that was ignored; a fault cannot be ignored */
    if (prev->sa_handler == SIG_DFL || prev->sa_handler == SIG_IGN) {
        /* The default action: die of the signal, when the faulting access runs again
         * or, for a sent one, when this handler returns and unblocks it. */
        signal(sig, SIG_DFL);
        if (!fault)
            raise(sig);
        return;
    }
    struct sigaction p = *prev;
    if (p.sa_flags & SA_RESETHAND) {
        signal(sig, SIG_DFL);
        prev->sa_handler = SIG_DFL;
        prev->sa_flags &= ~SA_SIGINFO;
    }
    sigset_t mask = ((ucontext_t *)uc)->uc_sigmask;
    for (int s = 1; s < NSIG; s++)
        if (sigismember(&p.sa_mask, s) == 1)
            sigaddset(&mask, s);
    if (!(p.sa_flags & SA_NODEFER))
        sigaddset(&mask, sig);
    else
        sigdelset(&mask, sig);
    pthread_sigmask(SIG_SETMASK, &mask, NULL);
    if (p.sa_flags & SA_SIGINFO)
        p.sa_sigaction(sig, si, uc);
    else
        p.sa_handler(sig);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    const char *call = mpix_fast_call;
    if (call == NULL || si->si_code <= 0) {
        chain(sig == SIGBUS ? &prev_bus : &prev_segv, sig, si, uc);
        return;
    }
    char line[256];
    int n = world_rank >= 0
                ? snprintf(line, sizeof line,
                           "mpix: rank %d: %s: memory fault at address %p: a buffer argument is not accessible memory\n",
                           world_rank, call, si->si_addr)
                : snprintf(line, sizeof line,
                           "mpix: %s: memory fault at address %p: a buffer argument is not accessible memory\n", call,
                           si->si_addr);
    if (n > 0 && write(2, line, (size_t)n) < 0) {
        /* nothing more to do */
    }
    signal(sig, SIG_DFL); /* the access runs again and the process dies of it */
}

/* install puts on_fault in front of sig's handler if that is Go's (in libmpix). */
static void install(int sig, struct sigaction *prev)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) != 0 || !in_libmpix(handler_addr(&cur)))
        return; /* the program's own handler (or none): leave it alone */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigfillset(&sa.sa_mask); /* chain() sets the previous handler's mask itself */
    *prev = cur;
    sigaction(sig, &sa, NULL);
}

/* mpix_fault_init installs the handler (once) in front of Go's; rank is the process's
 * rank in MPI_COMM_WORLD (-1 for a single process). */
void mpix_fault_init(int rank)
{
    world_rank = rank;
    if (installed)
        return;
    installed = 1;
    install(SIGSEGV, &prev_segv);
    install(SIGBUS, &prev_bus);
}

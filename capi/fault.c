/* A memory fault in the library's C code (a fast path copying from or into a user
 * buffer that is not memory) names the MPI call in one line before the process dies
 * of it, as a segfault, so that the launcher reports signal 11.
 *
 * The handler is chained in front of the one present at MPI_Init (Go's, which
 * forwards faults outside Go code to the program's own). It looks at the faulting
 * thread's stack: a fault with an MPI call's frame above it and no Go frame in between
 * happened in the library's C; anything else (a fault in Go code, which Go turns into
 * a panic that capi/errors.go's faulted reports; the program's own segfault outside
 * MPI) goes to the previous handler unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct sigaction prev_segv, prev_bus;
static int installed;
static int world_rank = -1;

/* fault_call finds the MPI call the faulting thread is in: the first frame of an MPI
 * procedure's entry (capi/zshim.c) above the fault, unless a Go frame (a cgo
 * callback) comes first; NULL if none. */
static const char *fault_call(void)
{
    void *pcs[64];
    int n = backtrace(pcs, 64);
    for (int i = 0; i < n; i++) {
        Dl_info d;
        if (!dladdr(pcs[i], &d) || d.dli_sname == NULL)
            continue;
        /* PMPI_X and its weak alias MPI_X share an address: dladdr names either. */
        if (strncmp(d.dli_sname, "PMPI_", 5) == 0 || strncmp(d.dli_sname, "PMPIX_", 6) == 0)
            return d.dli_sname + 1;
        if (strncmp(d.dli_sname, "MPI_", 4) == 0 || strncmp(d.dli_sname, "MPIX_", 5) == 0)
            return d.dli_sname;
        if (strncmp(d.dli_sname, "crosscall2", 10) == 0 || strncmp(d.dli_sname, "_cgoexp_", 8) == 0 ||
            strncmp(d.dli_sname, "runtime.", 8) == 0)
            return NULL;
    }
    return NULL;
}

static void chain(const struct sigaction *prev, int sig, siginfo_t *si, void *uc)
{
    if (prev->sa_flags & SA_SIGINFO) {
        if (prev->sa_sigaction != NULL) {
            prev->sa_sigaction(sig, si, uc);
            return;
        }
    } else if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
        prev->sa_handler(sig);
        return;
    }
    /* The default action: die of the signal when the faulting access runs again. */
    signal(sig, SIG_DFL);
}

static void on_fault(int sig, siginfo_t *si, void *uc)
{
    const char *call = fault_call();
    if (call == NULL) {
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

/* mpix_fault_init installs the handler (once) in front of the current ones; rank is
 * the process's rank in MPI_COMM_WORLD (-1 for a single process). */
void mpix_fault_init(int rank)
{
    world_rank = rank;
    if (installed)
        return;
    installed = 1;
    void *warm[1];
    backtrace(warm, 1); /* loads the unwinder now, not inside the handler */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &prev_segv);
    sigaction(SIGBUS, &sa, &prev_bus);
}

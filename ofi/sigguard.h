//go:build cgo && !mpix_noofi

// The signal-handler guard around code that loads and runs other libraries'
// providers: libfabric's (shim.c: dlopen, fi_getinfo, opening and closing
// endpoints) and libibverbs' (verbs.c: dlopen, ibv_get_device_list). Such code may
// install signal handlers of its own (psm2 replaces SIGSEGV's, so that a program's
// segfault prints psm2's backtrace and exits with 1, and Go's handlers are gone).

#ifndef MPIX_OFI_SIGGUARD_H
#define MPIX_OFI_SIGGUARD_H

#include <signal.h>

#pragma GCC visibility push(hidden)

// The dispositions of every signal that has one, as saved before the guarded code.
typedef struct {
	struct sigaction act[NSIG];
	unsigned char ok[NSIG];
} mpix_sigguard;

// mpix_sigguard_save saves every signal's disposition into g and takes the guard's
// lock, so that guarded regions never overlap; mpix_sigguard_restore must follow on
// the same thread.
void mpix_sigguard_save(mpix_sigguard *g);

// mpix_sigguard_restore puts back each disposition that changed since the save where
// the new handler is provider code (in a shared object other than libmpix and the
// program: a handler that the program or Go installed meanwhile stays), and releases
// the lock.
void mpix_sigguard_restore(const mpix_sigguard *g);

#pragma GCC visibility pop

#endif

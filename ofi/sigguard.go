//go:build cgo && !mpix_noofi

package ofi

/*
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include "sigguard.h"

// What TestSigGuard needs from C (cgo cannot be used in a _test file).

static uintptr_t sigguard_handler_of(const struct sigaction *a)
{
	return (uintptr_t)a->sa_handler; // sa_sigaction shares the address
}

// sigguard_install_foreign installs for sig a handler that lies in libc, a shared
// object other than libmpix and the program, as a provider's library would: srand,
// found in libc itself (the program's address for it could be a PLT entry of its
// own). It is never run: the test raises no signal.
static int sigguard_install_foreign(int sig)
{
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	if (!libc)
		return -1;
	void *fn = dlsym(libc, "srand");
	dlclose(libc);
	if (!fn)
		return -1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = (void (*)(int))fn;
	return sigaction(sig, &sa, NULL);
}

static void sigguard_own_handler(int sig) { (void)sig; }

// sigguard_install_own installs for sig a handler in this object, as the program or
// Go would.
static int sigguard_install_own(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = sigguard_own_handler;
	return sigaction(sig, &sa, NULL);
}
*/
import "C"

import (
	"errors"
	"runtime"
)

// guardSignals runs f between mpix_sigguard_save and mpix_sigguard_restore, as the C
// entries run libfabric's and libibverbs' code; the thread stays the same, since the
// guard's lock is held in between.
func guardSignals(f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var g C.mpix_sigguard
	C.mpix_sigguard_save(&g)
	defer C.mpix_sigguard_restore(&g)
	f()
}

// sigAction is one signal's disposition.
type sigAction C.struct_sigaction

func getSigaction(sig int) (a sigAction) {
	C.sigaction(C.int(sig), nil, (*C.struct_sigaction)(&a))
	return a
}

func setSigaction(sig int, a *sigAction) {
	C.sigaction(C.int(sig), (*C.struct_sigaction)(a), nil)
}

// handler is the disposition's handler address (0 for SIG_DFL).
func (a *sigAction) handler() uintptr {
	return uintptr(C.sigguard_handler_of((*C.struct_sigaction)(a)))
}

// installForeignHandler installs, as a provider would, a handler for sig in libc.
func installForeignHandler(sig int) error {
	if C.sigguard_install_foreign(C.int(sig)) != 0 {
		return errors.New("cannot install a handler from libc")
	}
	return nil
}

// installOwnHandler installs a handler for sig in this object.
func installOwnHandler(sig int) error {
	if C.sigguard_install_own(C.int(sig)) != 0 {
		return errors.New("cannot install a handler")
	}
	return nil
}

//go:build cgo && !mpix_noofi

// The signal-handler guard (sigguard.h), shared by the libfabric shim and the
// libibverbs device list.

#define _GNU_SOURCE // dladdr1
#include "sigguard.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

// guard_mu is held from a save to its restore: two guarded regions at once (a
// libfabric scan and mpixinfo's libibverbs list) could otherwise save each other's
// provider handlers as the ones to keep.
static pthread_mutex_t guard_mu = PTHREAD_MUTEX_INITIALIZER;

void mpix_sigguard_save(mpix_sigguard *g)
{
	pthread_mutex_lock(&guard_mu);
	for (int s = 1; s < NSIG; s++)
		g->ok[s] = s != SIGKILL && s != SIGSTOP && sigaction(s, NULL, &g->act[s]) == 0;
}

// handler_obj returns the loaded object (link map) that holds a disposition's
// handler, NULL for SIG_DFL, SIG_IGN or code in no object.
static struct link_map *handler_obj(const struct sigaction *sa)
{
	if (sa->sa_handler == SIG_DFL || sa->sa_handler == SIG_IGN)
		return NULL;
	void *pc = (sa->sa_flags & SA_SIGINFO) ? (void *)sa->sa_sigaction : (void *)sa->sa_handler;
	Dl_info d;
	struct link_map *lm = NULL;
	if (!dladdr1(pc, &d, (void **)&lm, RTLD_DL_LINKMAP))
		return NULL;
	return lm;
}

// installed_by_provider reports whether a handler lies in a shared object other than
// libmpix (this file's) and the program (whose link map has the empty name).
static int installed_by_provider(const struct sigaction *sa)
{
	struct link_map *lm = handler_obj(sa), *self = NULL;
	Dl_info d;
	if (lm == NULL || !dladdr1((void *)mpix_sigguard_save, &d, (void **)&self, RTLD_DL_LINKMAP))
		return 0;
	return lm != self && lm->l_name != NULL && lm->l_name[0] != '\0';
}

void mpix_sigguard_restore(const mpix_sigguard *g)
{
	for (int s = 1; s < NSIG; s++) {
		struct sigaction now;
		if (!g->ok[s] || sigaction(s, NULL, &now) != 0)
			continue;
		if ((now.sa_handler != g->act[s].sa_handler || now.sa_flags != g->act[s].sa_flags) &&
		    installed_by_provider(&now))
			sigaction(s, &g->act[s], NULL);
	}
	pthread_mutex_unlock(&guard_mu);
}

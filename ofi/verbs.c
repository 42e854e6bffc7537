//go:build cgo && !mpix_noofi

// The RDMA devices on this machine, as libibverbs lists them (libfabric's verbs
// provider runs over them). libibverbs is loaded with dlopen, like libfabric, so mpix
// runs where it is not installed. Only mpixinfo asks, through MPI_T. Loading it and
// listing the devices runs its providers' code (rdma-core's driver libraries), which
// may install signal handlers as libfabric's providers do: the sigguard.h guard keeps
// the process's.

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "sigguard.h"

struct ibv_device;

// list_devices is mpix_verbs_devices without the guard.
static int list_devices(char *out, int n)
{
	out[0] = 0;
	void *lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(out, n, "libibverbs is not installed (%s)", dlerror());
		return -1;
	}
	struct ibv_device **(*get)(int *) = (struct ibv_device **(*)(int *))dlsym(lib, "ibv_get_device_list");
	void (*release)(struct ibv_device **) = (void (*)(struct ibv_device **))dlsym(lib, "ibv_free_device_list");
	const char *(*name)(struct ibv_device *) = (const char *(*)(struct ibv_device *))dlsym(lib, "ibv_get_device_name");
	if (!get || !release || !name) {
		snprintf(out, n, "libibverbs.so.1 lacks ibv_get_device_list");
		dlclose(lib);
		return -1;
	}
	int count = 0;
	struct ibv_device **list = get(&count);
	if (!list) {
		count = 0; // no devices, or no kernel support: none
	} else {
		size_t used = 0;
		for (int i = 0; i < count; i++) {
			const char *s = name(list[i]);
			int w = snprintf(out + used, (size_t)n - used, "%s%s", i ? " " : "", s ? s : "?");
			if (w < 0 || used + (size_t)w >= (size_t)n)
				break;
			used += (size_t)w;
		}
		release(list);
	}
	dlclose(lib);
	return count;
}

// mpix_verbs_devices writes the devices' names, separated by spaces, into out (size
// n). It returns their number, or -1 with the reason in out when libibverbs cannot
// be loaded.
int mpix_verbs_devices(char *out, int n)
{
	mpix_sigguard g;
	mpix_sigguard_save(&g);
	int count = list_devices(out, n);
	mpix_sigguard_restore(&g);
	return count;
}

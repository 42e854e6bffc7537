//go:build cgo

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "shim.h"

// The PMIx types the calls below pass, as the PMIx standard lays them out.
typedef uint16_t pmix_data_type_t;
typedef struct {
	char nspace[MPIX_PMIX_MAX_NSLEN + 1];
	uint32_t rank;
} pmix_proc_t;
typedef struct {
	pmix_data_type_t type;
	union {
		bool flag;
		uint8_t byte;
		char *string;
		size_t size;
		pid_t pid;
		int integer;
		int8_t int8;
		int16_t int16;
		int32_t int32;
		int64_t int64;
		unsigned int uint;
		uint8_t uint8;
		uint16_t uint16;
		uint32_t uint32;
		uint64_t uint64;
		char pad[24]; // the real union's size
	} data;
} pmix_value_t;
typedef struct {
	char key[512];
	uint32_t flags;
	pmix_value_t value;
} pmix_info_t;

enum {
	PMIX_BOOL = 1, PMIX_BYTE = 2, PMIX_STRING = 3, PMIX_SIZE = 4, PMIX_PID = 5,
	PMIX_INT = 6, PMIX_INT8 = 7, PMIX_INT16 = 8, PMIX_INT32 = 9, PMIX_INT64 = 10,
	PMIX_UINT = 11, PMIX_UINT8 = 12, PMIX_UINT16 = 13, PMIX_UINT32 = 14,
	PMIX_UINT64 = 15, PMIX_PROC_RANK = 40,
};
#define PMIX_GLOBAL 3
#define PMIX_RANK_WILDCARD (UINT32_MAX - 1)
#define PMIX_COLLECT_DATA "pmix.collect"

static struct {
	void *lib;
	int (*init)(pmix_proc_t *proc, pmix_info_t *info, size_t ninfo);
	int (*finalize)(const pmix_info_t *info, size_t ninfo);
	int (*abort)(int status, const char *msg, pmix_proc_t *procs, size_t nprocs);
	int (*put)(uint8_t scope, const char *key, pmix_value_t *val);
	int (*commit)(void);
	int (*fence)(const pmix_proc_t *procs, size_t nprocs, const pmix_info_t *info, size_t ninfo);
	int (*get)(const pmix_proc_t *proc, const char *key, const pmix_info_t *info, size_t ninfo,
		   pmix_value_t **val);
	const char *(*error_string)(int status);
	pmix_proc_t self;
	char err[512];
} px;

const char *mpix_pmix_error(void) { return px.err; }

const char *mpix_pmix_strerror(int status)
{
	if (status == MPIX_PMIX_ENOLIB)
		return px.err;
	if (px.error_string)
		return px.error_string(status);
	return "unknown PMIx error";
}

// load opens libpmix once; 0 on success.
static int load(void)
{
	if (px.lib)
		return 0;
	// libpmix loads its plugins (components) with dlopen and needs its own
	// symbols global for them.
	void *lib = dlopen("libpmix.so.2", RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		snprintf(px.err, sizeof px.err, "libpmix.so.2 cannot be loaded (%s); install libpmix2", dlerror());
		return MPIX_PMIX_ENOLIB;
	}
	px.init = dlsym(lib, "PMIx_Init");
	px.finalize = dlsym(lib, "PMIx_Finalize");
	px.abort = dlsym(lib, "PMIx_Abort");
	px.put = dlsym(lib, "PMIx_Put");
	px.commit = dlsym(lib, "PMIx_Commit");
	px.fence = dlsym(lib, "PMIx_Fence");
	px.get = dlsym(lib, "PMIx_Get");
	px.error_string = dlsym(lib, "PMIx_Error_string");
	if (!px.init || !px.finalize || !px.abort || !px.put || !px.commit || !px.fence || !px.get) {
		snprintf(px.err, sizeof px.err, "libpmix.so.2 lacks PMIx_Init and friends");
		dlclose(lib);
		return MPIX_PMIX_ENOLIB;
	}
	px.lib = lib;
	return 0;
}

int mpix_pmix_init(char nspace[MPIX_PMIX_MAX_NSLEN + 1], uint32_t *rank)
{
	int rc = load();
	if (rc != 0)
		return rc;
	rc = px.init(&px.self, NULL, 0);
	if (rc != 0)
		return rc;
	memcpy(nspace, px.self.nspace, sizeof px.self.nspace);
	nspace[MPIX_PMIX_MAX_NSLEN] = 0;
	*rank = px.self.rank;
	return 0;
}

int mpix_pmix_put(const char *key, const char *value)
{
	pmix_value_t v;
	memset(&v, 0, sizeof v);
	v.type = PMIX_STRING;
	v.data.string = (char *)value; // PMIx_Put copies it
	return px.put(PMIX_GLOBAL, key, &v);
}

int mpix_pmix_commit(void) { return px.commit(); }

// fence: all processes of the namespace, collecting the data they put so
// that later gets need no round trip.
int mpix_pmix_fence(void)
{
	pmix_proc_t all;
	memset(&all, 0, sizeof all);
	memcpy(all.nspace, px.self.nspace, sizeof all.nspace);
	all.rank = PMIX_RANK_WILDCARD;
	pmix_info_t info;
	memset(&info, 0, sizeof info);
	strcpy(info.key, PMIX_COLLECT_DATA);
	info.value.type = PMIX_BOOL;
	info.value.data.flag = true;
	return px.fence(&all, 1, &info, 1);
}

int mpix_pmix_get(int64_t proc_rank, const char *key, int *kind, int64_t *num, char **str)
{
	pmix_proc_t p;
	memset(&p, 0, sizeof p);
	memcpy(p.nspace, px.self.nspace, sizeof p.nspace);
	p.rank = proc_rank < 0 ? PMIX_RANK_WILDCARD : (uint32_t)proc_rank;
	pmix_value_t *v = NULL;
	int rc = px.get(&p, key, NULL, 0, &v);
	if (rc != 0)
		return rc;
	if (!v)
		return MPIX_PMIX_ERR_NOT_FOUND;
	*kind = 1;
	switch (v->type) {
	case PMIX_STRING:
		*kind = 2;
		*str = v->data.string ? strdup(v->data.string) : strdup("");
		break;
	case PMIX_BOOL: *num = v->data.flag; break;
	case PMIX_BYTE: *num = v->data.byte; break;
	case PMIX_SIZE: *num = (int64_t)v->data.size; break;
	case PMIX_PID: *num = v->data.pid; break;
	case PMIX_INT: *num = v->data.integer; break;
	case PMIX_INT8: *num = v->data.int8; break;
	case PMIX_INT16: *num = v->data.int16; break;
	case PMIX_INT32: *num = v->data.int32; break;
	case PMIX_INT64: *num = v->data.int64; break;
	case PMIX_UINT: *num = v->data.uint; break;
	case PMIX_UINT8: *num = v->data.uint8; break;
	case PMIX_UINT16: *num = v->data.uint16; break;
	case PMIX_UINT32: case PMIX_PROC_RANK: *num = v->data.uint32; break;
	case PMIX_UINT64: *num = (int64_t)v->data.uint64; break;
	default: *kind = 0; break; // a type mpix does not read
	}
	// Release as PMIX_VALUE_RELEASE does for the types above: libpmix
	// allocates with malloc.
	if (v->type == PMIX_STRING)
		free(v->data.string);
	free(v);
	return 0;
}

int mpix_pmix_abort(int code, const char *msg) { return px.abort(code, msg, NULL, 0); }

int mpix_pmix_finalize(void) { return px.finalize(NULL, 0); }

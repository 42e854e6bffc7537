// The slice of PMIx's C API that mpix uses, declared here so that building
// needs no PMIx headers: the layouts are the PMIx standard's (checked against
// libpmix 4.2's pmix_common.h: pmix_proc_t is 260 bytes, pmix_value_t 32 with
// its union at 8, pmix_info_t 552 with flags at 512 and value at 520).
#ifndef MPIX_PMIX_SHIM_H
#define MPIX_PMIX_SHIM_H

#include <stdint.h>

// Only this package calls these: keep them out of libmpix.so's exports.
#pragma GCC visibility push(hidden)

#define MPIX_PMIX_MAX_NSLEN 255

// mpix_pmix_init loads libpmix.so.2 and calls PMIx_Init; 0 or an error code
// (MPIX_PMIX_ENOLIB when the library is missing), with mpix_pmix_error set.
#define MPIX_PMIX_ENOLIB (-100000)
int mpix_pmix_init(char nspace[MPIX_PMIX_MAX_NSLEN + 1], uint32_t *rank);
const char *mpix_pmix_error(void);
const char *mpix_pmix_strerror(int status);

// Values go as strings; integers come back as int64 (*kind 1), strings as a
// malloc'd copy the caller frees (*kind 2). proc_rank < 0: the job's own
// (PMIX_RANK_WILDCARD) attribute.
int mpix_pmix_put(const char *key, const char *value);
int mpix_pmix_commit(void);
int mpix_pmix_fence(void);
int mpix_pmix_get(int64_t proc_rank, const char *key, int *kind, int64_t *num, char **str);
int mpix_pmix_abort(int code, const char *msg);
int mpix_pmix_finalize(void);

#define MPIX_PMIX_ERR_NOT_FOUND (-46)

#pragma GCC visibility pop

#endif

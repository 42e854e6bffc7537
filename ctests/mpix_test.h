/* Small assertion helpers shared by mpix's C tests. A failed check prints the file,
 * line and message and exits non-zero, which mpixexec turns into a failed job. */
#ifndef MPIX_TEST_H
#define MPIX_TEST_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            exit(1);                                                            \
        }                                                                       \
    } while (0)

/* CHECK_CLASS runs an MPI call that must fail with error class want (under
 * MPI_ERRORS_RETURN) and returns its code. */
static inline int mpix_test_class(int rc)
{
    int cls = -1;
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : cls;
}
#define CHECK_CLASS(call, want)                                                 \
    do {                                                                        \
        int rc_ = (call);                                                       \
        int cls_ = mpix_test_class(rc_);                                        \
        CHECK(cls_ == (want), "%s returned class %d, want %d", #call, cls_, (want)); \
    } while (0)
#define CHECK_OK(call) CHECK_CLASS(call, MPI_SUCCESS)

/* mpix_test_pvar_total sums the n elements (one per VCI) of an MPI_T counter. */
static inline unsigned long long mpix_test_pvar_total(MPI_T_pvar_session s, MPI_T_pvar_handle h, int n)
{
    unsigned long long v[256] = {0}, sum = 0;
    CHECK_OK(MPI_T_pvar_read(s, h, v));
    for (int i = 0; i < n && i < 256; i++)
        sum += v[i];
    return sum;
}

#endif

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

/* Variant runs (MPIX_FASTPATH=0, MPIX_THREADCOMM_SEATS) name the path they exercise
 * in MPIX_TEST_PATH, and the program asserts through MPI_T that it ran there:
 *   engine   no C fast path: no message moved by capi/fast.c or lite.c
 *            (mpix_fastpath_messages) and no threadcomm state made in C
 *            (mpix_threadcomm_c_teams);
 *   c        some threadcomm state made in C;
 *   seats    some, and only, threadcomm states in C with per-thread seats;
 *   counter  some, and only, threadcomm states in C without seats.
 * mpix_test_path_begin() after MPI_Init; mpix_test_path_end() before MPI_Finalize
 * (both on one thread, outside parallel regions); without MPIX_TEST_PATH they do
 * nothing. */
static MPI_T_pvar_session mpix_test_path_s;
static MPI_T_pvar_handle mpix_test_path_h[2];
static int mpix_test_path_n[2], mpix_test_path_on;

static inline void mpix_test_pvar_handle(const char *name, MPI_T_pvar_handle *h, int *count)
{
    int n, idx = -1;
    CHECK_OK(MPI_T_pvar_get_num(&n));
    for (int i = 0; i < n && idx < 0; i++) {
        char nm[256], desc[1024];
        int nl = sizeof nm, dl = sizeof desc, verb, cls, bind, ro, ct, at;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_OK(MPI_T_pvar_get_info(i, nm, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &ct, &at));
        if (strcmp(nm, name) == 0)
            idx = i;
    }
    CHECK(idx >= 0, "no MPI_T performance variable %s", name);
    CHECK_OK(MPI_T_pvar_handle_alloc(mpix_test_path_s, idx, NULL, h, count));
}

static inline void mpix_test_path_begin(void)
{
    const char *want = getenv("MPIX_TEST_PATH");
    int provided;
    if (want == NULL || *want == 0)
        return;
    mpix_test_path_on = 1;
    CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_OK(MPI_T_pvar_session_create(&mpix_test_path_s));
    mpix_test_pvar_handle("mpix_fastpath_messages", &mpix_test_path_h[0], &mpix_test_path_n[0]);
    mpix_test_pvar_handle("mpix_threadcomm_c_teams", &mpix_test_path_h[1], &mpix_test_path_n[1]);
}

static inline void mpix_test_path_end(void)
{
    if (!mpix_test_path_on)
        return;
    const char *want = getenv("MPIX_TEST_PATH");
    unsigned long long fast = mpix_test_pvar_total(mpix_test_path_s, mpix_test_path_h[0], mpix_test_path_n[0]);
    unsigned long long teams[256] = {0};
    CHECK(mpix_test_path_n[1] == 2, "mpix_threadcomm_c_teams has %d elements", mpix_test_path_n[1]);
    CHECK_OK(MPI_T_pvar_read(mpix_test_path_s, mpix_test_path_h[1], teams));
    if (strcmp(want, "engine") == 0)
        CHECK(fast == 0 && teams[0] + teams[1] == 0,
              "MPIX_TEST_PATH=engine, but C moved %llu messages and made %llu + %llu threadcomm states", fast,
              teams[0], teams[1]);
    else if (strcmp(want, "c") == 0)
        CHECK(teams[0] + teams[1] > 0, "MPIX_TEST_PATH=c, but no threadcomm state was made in C");
    else if (strcmp(want, "seats") == 0)
        CHECK(teams[1] > 0 && teams[0] == 0, "MPIX_TEST_PATH=seats, but C made %llu threadcomm states with seats and %llu without",
              teams[1], teams[0]);
    else if (strcmp(want, "counter") == 0)
        CHECK(teams[0] > 0 && teams[1] == 0, "MPIX_TEST_PATH=counter, but C made %llu threadcomm states without seats and %llu with",
              teams[0], teams[1]);
    else
        CHECK(0, "unknown MPIX_TEST_PATH %s", want);
    CHECK_OK(MPI_T_pvar_handle_free(mpix_test_path_s, &mpix_test_path_h[0]));
    CHECK_OK(MPI_T_pvar_handle_free(mpix_test_path_s, &mpix_test_path_h[1]));
    CHECK_OK(MPI_T_pvar_session_free(&mpix_test_path_s));
    CHECK_OK(MPI_T_finalize());
}

#endif

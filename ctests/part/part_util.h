/* Helpers shared by the partitioned-communication tests (ctests/part).
 *
 * Ranks are paired 0<->1, 2<->3, ...; in a pair the even rank is the "sender" where a
 * test has one direction. With an odd process count the last rank has no partner
 * (pair_peer() is MPI_PROC_NULL). Values are a function of (round, source rank,
 * element index), so data from another round, rank or position is detected. */
#ifndef PART_UTIL_H
#define PART_UTIL_H
#include <mpi.h>
/* mpix's mpi.h includes mpix.h itself; the explicit include is for builds where it
 * is a separate header (MPICH has none). */
#if defined(__has_include)
#if __has_include(<mpix.h>)
#include <mpix.h>
#endif
#endif
#include "mpix_test.h"
#include <sched.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static int rank, nproc;

/* MPIX_PART_STRICT=1 (mpix's ctests set it): also assert what MPICH 4.0.2, the
 * reference the tests were validated against, gets wrong; each such assertion says
 * so where it is made. */
static int part_strict;

/* A spin on MPI_Parrived / MPI_Test that has not succeeded in this many seconds
 * fails the test with a message instead of running into the launcher's timeout. */
#define PART_SPIN_LIMIT 30.0

static inline void part_init(int *argc, char ***argv)
{
    CHECK_OK(MPI_Init(argc, argv));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &nproc));
    const char *e = getenv("MPIX_PART_STRICT");
    part_strict = e != NULL && strcmp(e, "0") != 0 && *e != 0;
}

static inline int pair_peer(void)
{
    int p = rank ^ 1;
    return p < nproc ? p : MPI_PROC_NULL;
}

static inline int pval(int round, int src, long i)
{
    return (int)((round * 1000003L + src * 65537L + i * 7L + 1) & 0x7fffffff);
}

static inline void fill_ints(int *buf, long n, int round, int src)
{
    for (long i = 0; i < n; i++)
        buf[i] = pval(round, src, i);
}

/* check_ints: buf[lo..hi) holds round's values from src. */
static inline void check_ints(const int *buf, long lo, long hi, int round, int src, const char *what)
{
    for (long i = lo; i < hi; i++)
        CHECK(buf[i] == pval(round, src, i), "%s: round %d element %ld is %d, want %d (from rank %d)", what, round, i,
              buf[i], pval(round, src, i), src);
}

static inline void spin_pause(double t0, const char *what)
{
    CHECK(MPI_Wtime() - t0 < PART_SPIN_LIMIT, "%s: no progress in %.0f s", what, PART_SPIN_LIMIT);
    sched_yield();
}

/* spin_arrived: MPI_Parrived on partition part of req until it reports true. */
static inline void spin_arrived(MPI_Request req, int part, const char *what)
{
    int flag = 0;
    double t0 = MPI_Wtime();
    for (;;) {
        CHECK_OK(MPI_Parrived(req, part, &flag));
        if (flag)
            return;
        spin_pause(t0, what);
    }
}

/* check_recv_status: the status of a completed partitioned receive of count
 * elements of type dt from src with tag (MPI_PROC_NULL: the empty status). */
static inline void check_recv_status(const MPI_Status *st, MPI_Datatype dt, int src, int tag, int count,
                                     const char *what)
{
    int n = -1;
    CHECK_OK(MPI_Get_count(st, dt, &n));
    if (src == MPI_PROC_NULL) {
        CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && n == 0,
              "%s: receive from MPI_PROC_NULL: source %d tag %d count %d", what, st->MPI_SOURCE, st->MPI_TAG, n);
        return;
    }
    CHECK(st->MPI_SOURCE == src, "%s: MPI_SOURCE %d, want %d", what, st->MPI_SOURCE, src);
    CHECK(st->MPI_TAG == tag, "%s: MPI_TAG %d, want %d", what, st->MPI_TAG, tag);
    CHECK(n == count, "%s: MPI_Get_count %d, want %d", what, n, count);
}

static inline void sleep_usec(long usec)
{
    struct timespec ts = {usec / 1000000, (usec % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* scramble: a permutation of 0..n-1 that depends on seed (a multiplier coprime to n
 * plus an offset). */
static inline void scramble(int *perm, int n, int seed)
{
    int mul = 1;
    for (int m = 3 + 2 * (seed % 7); m < 3 * n + 16; m += 2) {
        int a = m, b = n;
        while (b) {
            int t = a % b;
            a = b;
            b = t;
        }
        if (a == 1) {
            mul = m;
            break;
        }
    }
    for (int i = 0; i < n; i++)
        perm[i] = (int)(((long)i * mul + seed) % n);
}

#endif

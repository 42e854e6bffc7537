/* part: MPI-4 partitioned point-to-point communication, the benchmarks of [PA]
 * ("A Dynamic Network-Native MPI Partitioned Aggregation Over InfiniBand Verbs",
 * sec. V) after Temuçin et al.'s partitioned micro-benchmarks (ICPP'22). C + OpenMP,
 * MPI_Init_thread(MPI_THREAD_MULTIPLE); rank 0 sends, rank 1 receives (2 processes)
 * except in sweep (4 processes).
 *
 *     part overhead [-parts LIST] [-maxsize BYTES] [-budget SECONDS]
 *         [PA] sec. V-B: one partitioned round against one MPI_Send/MPI_Recv of the same
 *         total size. A round: the sender's MPI_Start, every partition MPI_Pready'd from
 *         an OpenMP parallel loop (the partitions split over omp_get_max_threads()
 *         threads, in static chunks: the paper has one thread per partition), MPI_Wait;
 *         the receiver's MPI_Start (posted before the sender starts) and MPI_Wait, then a
 *         0-byte acknowledgement back that the sender receives before its next round.
 *         The send round is MPI_Send + the acknowledgement. Sizes 1 KiB, 4 KiB, ... up to
 *         MAXSIZE (default 64 MiB; env PART_MAXSIZE too), partitions LIST (default
 *         4,32,128). Prints at rank 0, in µs per round:
 *             partov send SIZE US
 *             partov part P SIZE US
 *             partov ratio P SIZE RATIO        (part / send, unitless)
 *     part perceived [-parts LIST] [-compute US] [-noise PCT] [-iters N] [-maxsize BYTES]
 *         [PA] sec. V-C, Temuçin ICPP'22's perceived bandwidth with the single thread
 *         delay model: every partition's data is "computed" (a busy wait) for COMPUTE µs
 *         (default 1000) from a common start, and one partition, chosen at random each
 *         iteration, for NOISE percent (default 4) longer: the late thread. A thread owns
 *         a static chunk of the partitions and MPI_Pready's each when its compute ends
 *         (the late one last). The sender takes CLOCK_MONOTONIC just before every
 *         MPI_Pready and sends the latest (the last MPI_Pready) to the receiver after
 *         MPI_Wait; the receiver takes the clock when its MPI_Wait returns (both
 *         processes are on one node: one clock). Perceived bandwidth = bytes / (receiver
 *         done - last MPI_Pready), the median over ITERS iterations (default 20; above
 *         1 MiB proportionally fewer, at least 5; after 2 warm-up ones). Prints at rank 1, in MB/s:
 *             partbw COMPUTE NOISE P SIZE MBS
 *     part sweep [-parts LIST] [-compute US] [-iters N] [-maxsize BYTES]
 *         The sweep3d pattern of [PA] sec. V-D on 4 processes: a 2x2 process grid, the
 *         wavefront from rank 0's corner. Each process receives partitioned from its
 *         upstream neighbours (up, left), and per partition (in its thread): waits for it
 *         with MPI_Parrived from every upstream, computes COMPUTE µs (default 50) and
 *         MPI_Pready's it to every downstream neighbour (down, right). A sweep starts after
 *         an MPI_Barrier and ends when the last process's MPI_Waits return; the row is
 *         the median over ITERS sweeps (default 10, after 3 warm-up ones) of the slowest
 *         process's time. Reference rows "send": the same with whole messages
 *         (MPI_Irecv from every upstream, MPI_Waitall, the partitions computed in
 *         parallel, MPI_Isend to every downstream, MPI_Waitall). SIZE is each message's
 *         size: 1 KiB .. MAXSIZE (default 4 MiB). Prints at rank 0, in µs per sweep:
 *             partsweep part P SIZE US
 *             partsweep send P SIZE US
 *     part strategies overhead|perceived [-parts LIST] [-maxsize BYTES] [...]
 *         The overhead round or the perceived bandwidth (options as above; defaults
 *         32 partitions, 16 MiB) for each aggregation strategy of mpix, set with the info
 *         key mpix_part_aggregation = none | table | ploggp | timer_ploggp on
 *         MPI_Psend_init (include/mpix.h sec. 4). Other libraries have no such key: they
 *         get one set of rows, labelled with the library (mpich, openmpi-isend). Prints
 *             partstrat STRATEGY P SIZE US       (overhead, rank 0)
 *             partstratbw STRATEGY P SIZE MBS    (perceived, rank 1)
 *
 * LIST is comma-separated partition counts (each at most 128, dividing every size).
 *
 * Open MPI 4.1 has no partitioned communication. Built with -DPART_EMULATE (what
 * bench/driver does for the Open MPI build) the partitioned calls are replaced by what
 * Open MPI 5's part/persist component does with its point-to-point layer: a receive
 * posted per partition at MPI_Start, one MPI_Isend per partition as soon as MPI_Pready
 * makes it ready (each partition its own tag on a duplicate of MPI_COMM_WORLD),
 * MPI_Parrived = MPI_Test of that partition's receive, MPI_Wait = MPI_Waitall of the
 * partitions' requests.
 *
 * When a library refuses MPI_Psend_init / MPI_Precv_init (mpix before it implements
 * them) the program prints a "note ..." line and no partitioned rows (overhead and sweep
 * still print their send rows), and exits 0: bench/driver shows the note (or, with no
 * row at all, gives it as the reason). A round whose received data is wrong aborts.
 *
 * Timing follows bench/rmaext.c: clock_gettime(CLOCK_MONOTONIC), not MPI_Wtime (on mpix
 * that enters Go). An overhead row first runs one round (first touch, data checked),
 * estimates the round time (runs doubling until one takes 2 ms), runs a tenth of its
 * count as warm-up, then times as many rounds as fit BUDGET seconds (default 0.15, at
 * least 5) in up to 16 chunks; the row is the median over the chunks of the mean time
 * per round. Rank 0 tells rank 1 each run's round count (outside the timed part).
 *
 * On a 2-core machine the threads oversubscribe the cores: the sender's OpenMP threads
 * and the receiver share 2 CPUs (sweep: 4 processes x threads). bench/driver runs it
 * with OMP_WAIT_POLICY=passive so that idle OpenMP threads sleep instead of spinning.
 *
 * Built once against each MPI and run by bench/driver (figures.go). */
#include <omp.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mpi.h>
#include "bench_util.h" /* median, human */

#if defined(MPIX_EXTENSIONS_VERSION)
#define LIB_MPIX 1 /* mpix: the aggregation info keys of mpix.h sec. 4 */
#define LIB_LABEL "mpix"
#else
#define LIB_MPIX 0
#if defined(PART_EMULATE)
#define LIB_LABEL "openmpi-isend"
#elif defined(OMPI_MAJOR_VERSION)
#define LIB_LABEL "openmpi"
#elif defined(MPICH_VERSION)
#define LIB_LABEL "mpich"
#else
#define LIB_LABEL "mpi"
#endif
#endif

#if defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION < 5 && !defined(PART_EMULATE)
#error "Open MPI before 5.0 has no partitioned communication: build with -DPART_EMULATE"
#endif

#define MAXPARTS 128
#define MAXLIST 16
#define CHUNKS 16
#define TAG_CTRL 30001
#define TAG_ACK 30002
#define TAG_STAMP 30003
#define TAG_DATA 7

static int rank, nprocs, provided;
#define note(...) note_from(rank, __VA_ARGS__)
static int part_refused; /* the library refused the partitioned requests once: send rows only */
static long maxsize = 64L << 20;
static double budget = 0.15;
static int parts_list[MAXLIST], nparts;
static double compute_us = -1, noise_pct = 4;
static int iters = -1;

/* ---- helpers ---- */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* spin_until busy-waits (the "compute") until the monotonic clock passes t. */
static void spin_until(double t)
{
    while (now() < t)
        ;
}

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "part: error: rank %d: ", rank);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    MPI_Abort(MPI_COMM_WORLD, 3);
}

static const char *errstr(int rc)
{
    static char s[MPI_MAX_ERROR_STRING];
    int len;
    if (MPI_Error_string(rc, s, &len) != MPI_SUCCESS)
        snprintf(s, sizeof s, "error %d", rc);
    return s;
}

/* all_ok is the logical and of ok over MPI_COMM_WORLD. */
static int all_ok(int ok)
{
    int all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

/* ---- partitioned requests, native or emulated ---- */

typedef struct {
    int send, parts;
    MPI_Request req; /* native */
#ifdef PART_EMULATE
    char *buf;
    MPI_Count part_bytes;
    int peer, tag;
    MPI_Request sub[MAXPARTS];
    int arrived[MAXPARTS];
#endif
} preq;

#ifdef PART_EMULATE
static MPI_Comm ecomm = MPI_COMM_NULL; /* the emulation's messages: tag * MAXPARTS + partition */
#endif

/* p_init is MPI_Psend_init (send) or MPI_Precv_init of parts partitions of part_bytes
 * bytes each; it returns the MPI error code (errors return for these two calls only: a
 * library without them is noted, every other failure stays fatal). */
static int p_init(preq *r, int send, void *buf, int parts, MPI_Count part_bytes, int peer, int tag, MPI_Info info)
{
    memset(r, 0, sizeof *r);
    r->send = send, r->parts = parts;
#ifdef PART_EMULATE
    (void)info;
    r->buf = buf, r->part_bytes = part_bytes, r->peer = peer, r->tag = tag;
    for (int p = 0; p < parts; p++)
        r->sub[p] = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
#else
    int rc;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (send)
        rc = MPI_Psend_init(buf, parts, part_bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, info, &r->req);
    else
        rc = MPI_Precv_init(buf, parts, part_bytes, MPI_BYTE, peer, tag, MPI_COMM_WORLD, info, &r->req);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (rc != MPI_SUCCESS)
        r->req = MPI_REQUEST_NULL;
    return rc;
#endif
}

static void p_start(preq *r)
{
#ifdef PART_EMULATE
    for (int p = 0; p < r->parts; p++) {
        r->arrived[p] = 0;
        if (!r->send)
            MPI_Irecv(r->buf + p * r->part_bytes, (int)r->part_bytes, MPI_BYTE, r->peer, r->tag * MAXPARTS + p,
                      ecomm, &r->sub[p]);
    }
#else
    MPI_Start(&r->req);
#endif
}

static void p_pready(preq *r, int p)
{
#ifdef PART_EMULATE
    MPI_Isend(r->buf + p * r->part_bytes, (int)r->part_bytes, MPI_BYTE, r->peer, r->tag * MAXPARTS + p, ecomm,
              &r->sub[p]);
#else
    MPI_Pready(p, r->req);
#endif
}

/* p_parrived: one thread per partition (the emulation tests that partition's request). */
static int p_parrived(preq *r, int p)
{
    int flag = 0;
#ifdef PART_EMULATE
    if (r->arrived[p])
        return 1;
    MPI_Test(&r->sub[p], &flag, MPI_STATUS_IGNORE);
    r->arrived[p] = flag;
#else
    MPI_Parrived(r->req, p, &flag);
#endif
    return flag;
}

static void p_wait(preq *r)
{
#ifdef PART_EMULATE
    MPI_Waitall(r->parts, r->sub, MPI_STATUSES_IGNORE);
#else
    MPI_Wait(&r->req, MPI_STATUS_IGNORE);
#endif
}

static void p_free(preq *r)
{
#ifndef PART_EMULATE
    if (r->req != MPI_REQUEST_NULL)
        MPI_Request_free(&r->req);
#endif
    r->req = MPI_REQUEST_NULL;
}

/* pair_init makes the send (rank 0) and receive (rank 1) request of one configuration;
 * info goes to MPI_Psend_init. It returns 0, with a note, when either side failed. */
static int pair_init(preq *r, char *buf, int parts, long size, MPI_Info info, const char *what)
{
    int rc = p_init(r, rank == 0, buf, parts, size / parts, 1 - rank, TAG_DATA, rank == 0 ? info : MPI_INFO_NULL);
    char why[MPI_MAX_ERROR_STRING + 64] = "";
    if (rc != MPI_SUCCESS)
        snprintf(why, sizeof why, "%s: %s", rank == 0 ? "MPI_Psend_init" : "MPI_Precv_init", errstr(rc));
    int ok = all_ok(rc == MPI_SUCCESS);
    if (!ok) {
        char other[sizeof why];
        if (rank == 1)
            MPI_Send(why, sizeof why, MPI_CHAR, 0, TAG_CTRL, MPI_COMM_WORLD);
        else {
            MPI_Recv(other, sizeof other, MPI_CHAR, 1, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            note("%s rows skipped: %s%s%s", what, why, why[0] && other[0] ? "; " : "", other);
        }
        if (rc == MPI_SUCCESS)
            p_free(r);
    }
    return ok;
}

/* pattern is the byte the sender writes at both ends of partition p in round n. */
static char pattern(long n, int p) { return (char)((n * 7 + p + 1) & 0xff); }

static void check(const char *buf, int parts, long size, long n, const char *what)
{
    long pb = size / parts;
    for (int p = 0; p < parts; p++)
        if (buf[p * pb] != pattern(n, p) || buf[p * pb + pb - 1] != pattern(n, p))
            die("%s, %d partitions, %ld bytes: partition %d holds wrong data after round %ld", what, parts, size, p, n);
}

/* ---- overhead rounds ---- */

typedef struct {
    int partitioned; /* 0: MPI_Send/MPI_Recv of the whole buffer */
    preq r;
    char *buf;
    int parts;
    long size, n; /* n: rounds so far (both ranks count alike) */
    int check;    /* the receiver checks the data of the next rounds */
} octx;

/* rounds runs k rounds on both ranks (see the file comment). */
static void rounds(octx *c, long k)
{
    long pb = c->size / c->parts;
    for (long i = 0; i < k; i++, c->n++) {
        if (rank == 0) {
            if (c->partitioned) {
                p_start(&c->r);
#pragma omp parallel for schedule(static)
                for (int p = 0; p < c->parts; p++) {
                    c->buf[p * pb] = c->buf[p * pb + pb - 1] = pattern(c->n, p);
                    p_pready(&c->r, p);
                }
                p_wait(&c->r);
            } else {
                for (int p = 0; p < c->parts; p++)
                    c->buf[p * pb] = c->buf[p * pb + pb - 1] = pattern(c->n, p);
                MPI_Send(c->buf, (int)c->size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
            }
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            if (c->partitioned) {
                p_start(&c->r);
                p_wait(&c->r);
            } else
                MPI_Recv(c->buf, (int)c->size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (c->check)
                check(c->buf, c->parts, c->size, c->n, c->partitioned ? "partitioned" : "send");
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
}

/* run_k: rank 0 tells rank 1 to run k rounds (k 0: the row is done) and runs them,
 * returning the seconds they took at rank 0. */
static double run_k(octx *c, long k)
{
    MPI_Send(&k, 1, MPI_LONG, 1, TAG_CTRL, MPI_COMM_WORLD);
    double t = now();
    rounds(c, k);
    return now() - t;
}

/* time_rounds times one overhead row; both ranks call it. It returns the seconds per
 * round at rank 0 (0 at rank 1). */
static double time_rounds(octx *c)
{
    if (rank == 1) {
        long k;
        c->check = 1; /* the first run is one checked round */
        for (;;) {
            MPI_Recv(&k, 1, MPI_LONG, 0, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (k == 0)
                return 0;
            rounds(c, k);
            c->check = 0;
        }
    }
    run_k(c, 1); /* first touch, data checked */
    double per = 0;
    for (long k = 1;; k *= 2) {
        double s = run_k(c, k);
        if (s >= 2e-3 || k >= 1 << 16) {
            per = s / k;
            break;
        }
    }
    long n = (long)(budget / per);
    if (n < 5)
        n = 5;
    if (n / 10 > 0)
        run_k(c, n / 10);
    int nchunks = n < CHUNKS ? (int)n : CHUNKS;
    long chunk = (n + nchunks - 1) / nchunks, done = 0;
    double means[CHUNKS];
    int m = 0;
    while (done < n && m < CHUNKS) {
        long k = n - done < chunk ? n - done : chunk;
        means[m++] = run_k(c, k) / k;
        done += k;
    }
    long zero = 0;
    MPI_Send(&zero, 1, MPI_LONG, 1, TAG_CTRL, MPI_COMM_WORLD);
    return median(means, m);
}

/* overhead_row times one configuration: partitioned (parts, info) or, with parts 0,
 * MPI_Send of size bytes. It returns seconds per round at rank 0, -1 when the library
 * refused the partitioned requests (noted), 0 at rank 1. */
static double overhead_row(char *buf, int parts, long size, MPI_Info info, const char *what)
{
    octx c;
    memset(&c, 0, sizeof c);
    c.buf = buf, c.size = size, c.parts = parts ? parts : 1, c.partitioned = parts > 0;
    if (c.partitioned && !pair_init(&c.r, buf, parts, size, info, what))
        return -1;
    double s = time_rounds(&c);
    if (c.partitioned)
        p_free(&c.r);
    MPI_Barrier(MPI_COMM_WORLD);
    return s;
}

static int divides(int parts, long size) { return parts > 0 && parts <= MAXPARTS && size % parts == 0 && size / parts > 0; }

static long next_size(long s) { return s * 4; }

static void overhead_mode(void)
{
    char *buf = malloc(maxsize), h[32];
    memset(buf, 0, maxsize);
    for (long size = 1024; size <= maxsize; size = next_size(size)) {
        double send = overhead_row(buf, 0, size, MPI_INFO_NULL, "send");
        if (rank == 0)
            row("partov send %s %.3f\n", human(size, h), send * 1e6);
        for (int i = 0; i < nparts; i++) {
            int parts = parts_list[i];
            if (!divides(parts, size))
                continue;
            if (part_refused)
                continue;
            double s = overhead_row(buf, parts, size, MPI_INFO_NULL, "partitioned");
            if (s < 0) { /* noted: the send rows go on */
                part_refused = 1;
                continue;
            }
            if (rank == 0) {
                row("partov part %d %s %.3f\n", parts, human(size, h), s * 1e6);
                row("partov ratio %d %s %.3f\n", parts, human(size, h), s / send);
            }
        }
    }
    free(buf);
}

/* ---- perceived bandwidth ---- */

/* perceived_row runs the perceived-bandwidth iterations of one configuration and
 * returns the median perceived bandwidth in MB/s at rank 1 (0 at rank 0, -1 when the
 * library refused the requests). */
static double perceived_row(char *buf, int parts, long size, MPI_Info info, const char *what, unsigned *seed)
{
    preq r;
    if (!pair_init(&r, buf, parts, size, info, what))
        return -1;
    const int warm = 2;
    int n = iters > 0 ? iters : 20;
    if (size > 1L << 20 && n * (1L << 20) / size < n) /* fewer above 1 MiB, at least 5 */
        n = n * (1L << 20) / size < 5 ? (n < 5 ? n : 5) : (int)(n * (1L << 20) / size);
    double *bw = malloc(sizeof(double) * n);
    long pb = size / parts;
    double compute = compute_us * 1e-6, late = compute * noise_pct / 100;
    for (int it = 0; it < warm + n; it++) {
        int laggard = rand_r(seed) % parts; /* the same sequence on both ranks */
        MPI_Barrier(MPI_COMM_WORLD);
        p_start(&r);
        if (rank == 0) {
            double t0 = now(), last = 0;
#pragma omp parallel reduction(max : last)
            {
                int t = omp_get_thread_num(), nt = omp_get_num_threads();
                int lo = (int)((long)parts * t / nt), hi = (int)((long)parts * (t + 1) / nt);
                spin_until(t0 + compute);
                for (int p = lo; p < hi; p++) {
                    if (p == laggard)
                        continue;
                    buf[p * pb] = buf[p * pb + pb - 1] = pattern(it, p);
                    double s = now();
                    last = s > last ? s : last;
                    p_pready(&r, p);
                }
                if (laggard >= lo && laggard < hi) {
                    spin_until(t0 + compute + late);
                    buf[laggard * pb] = buf[laggard * pb + pb - 1] = pattern(it, laggard);
                    double s = now();
                    last = s > last ? s : last;
                    p_pready(&r, laggard);
                }
            }
            p_wait(&r);
            MPI_Send(&last, 1, MPI_DOUBLE, 1, TAG_STAMP, MPI_COMM_WORLD);
        } else {
            double last;
            p_wait(&r);
            double done = now();
            MPI_Recv(&last, 1, MPI_DOUBLE, 0, TAG_STAMP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (it == 0)
                check(buf, parts, size, it, "perceived");
            double dt = done - last;
            if (dt < 1e-9)
                dt = 1e-9;
            if (it >= warm)
                bw[it - warm] = size / dt / 1e6;
        }
    }
    double m = rank == 1 ? median(bw, n) : 0;
    free(bw);
    p_free(&r);
    MPI_Barrier(MPI_COMM_WORLD);
    return m;
}

static const char *compute_label(char *out)
{
    if (compute_us >= 1000 && (long)compute_us % 1000 == 0)
        sprintf(out, "%ldms", (long)compute_us / 1000);
    else
        sprintf(out, "%gus", compute_us);
    return out;
}

static void perceived_mode(void)
{
    char *buf = malloc(maxsize), h[32], cl[32];
    unsigned seed = 12345;
    memset(buf, 0, maxsize);
    compute_label(cl);
    for (int i = 0; i < nparts; i++) {
        int parts = parts_list[i];
        for (long size = 1024; size <= maxsize; size = next_size(size)) {
            if (!divides(parts, size))
                continue;
            double bw = perceived_row(buf, parts, size, MPI_INFO_NULL, "partitioned", &seed);
            if (bw < 0) {
                free(buf);
                return;
            }
            if (rank == 1)
                row("partbw %s %g%% %d %s %.3f\n", cl, noise_pct, parts, human(size, h), bw);
        }
    }
    free(buf);
}

/* ---- sweep ---- */

/* sweep_rows times the partitioned and the send sweep of one configuration on the 2x2
 * grid (the send sweep only once the library has refused the partitioned requests,
 * noted). */
static void sweep_rows(int parts, long size)
{
    int gi = rank / 2, gj = rank % 2;
    int up[2], nup = 0, down[2], ndown = 0;
    if (gi > 0)
        up[nup++] = rank - 2;
    if (gj > 0)
        up[nup++] = rank - 1;
    if (gi < 1)
        down[ndown++] = rank + 2;
    if (gj < 1)
        down[ndown++] = rank + 1;
    char *rbuf[2], *sbuf[2], h[32];
    preq rr[2], sr[2];
    int rc = MPI_SUCCESS;
    long pb = size / parts;
    int nrr = 0, nsr = 0; /* the requests made */
    for (int u = 0; u < nup; u++) {
        rbuf[u] = calloc(size, 1);
        if (rc == MPI_SUCCESS && !part_refused && (rc = p_init(&rr[u], 0, rbuf[u], parts, pb, up[u], TAG_DATA, MPI_INFO_NULL)) == MPI_SUCCESS)
            nrr++;
    }
    for (int d = 0; d < ndown; d++) {
        sbuf[d] = calloc(size, 1);
        if (rc == MPI_SUCCESS && !part_refused && (rc = p_init(&sr[d], 1, sbuf[d], parts, pb, down[d], TAG_DATA, MPI_INFO_NULL)) == MPI_SUCCESS)
            nsr++;
    }
    int ok = !part_refused && all_ok(rc == MPI_SUCCESS);
    if (!ok && !part_refused) {
        /* the reasons go to rank 0 for the note (rank 0 sends only: its reason is MPI_Psend_init's) */
        char why[MPI_MAX_ERROR_STRING + 64] = "", all[4][sizeof why];
        if (rc != MPI_SUCCESS)
            snprintf(why, sizeof why, "rank %d: %s", rank, errstr(rc));
        MPI_Gather(why, sizeof why, MPI_CHAR, all, sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
        for (int r = 0; r < 4 && rank == 0; r++)
            if (all[r][0])
                note("partitioned rows skipped: MPI_Psend_init/MPI_Precv_init failed: %s", all[r]);
        part_refused = 1;
    }
    const int warm = 3;
    int n = iters > 0 ? iters : 10;
    double *ts = malloc(sizeof(double) * n);
    double compute = compute_us * 1e-6;
    for (int variant = ok ? 0 : 1; variant < 2; variant++) {
        for (int it = 0; it < warm + n; it++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = now();
            if (variant == 0) {
                for (int u = 0; u < nup; u++)
                    p_start(&rr[u]);
                for (int d = 0; d < ndown; d++)
                    p_start(&sr[d]);
#pragma omp parallel for schedule(static)
                for (int p = 0; p < parts; p++) {
                    for (int u = 0; u < nup; u++)
                        while (!p_parrived(&rr[u], p))
                            sched_yield();
                    spin_until(now() + compute);
                    for (int d = 0; d < ndown; d++) {
                        sbuf[d][p * pb] = sbuf[d][p * pb + pb - 1] = pattern(it, p);
                        p_pready(&sr[d], p);
                    }
                }
                for (int u = 0; u < nup; u++)
                    p_wait(&rr[u]);
                for (int d = 0; d < ndown; d++)
                    p_wait(&sr[d]);
            } else {
                MPI_Request q[2];
                MPI_Status st[2];
                for (int u = 0; u < nup; u++)
                    MPI_Irecv(rbuf[u], (int)size, MPI_BYTE, up[u], TAG_DATA + 1, MPI_COMM_WORLD, &q[u]);
                MPI_Waitall(nup, q, st);
#pragma omp parallel for schedule(static)
                for (int p = 0; p < parts; p++) {
                    spin_until(now() + compute);
                    for (int d = 0; d < ndown; d++)
                        sbuf[d][p * pb] = sbuf[d][p * pb + pb - 1] = pattern(it, p);
                }
                for (int d = 0; d < ndown; d++)
                    MPI_Isend(sbuf[d], (int)size, MPI_BYTE, down[d], TAG_DATA + 1, MPI_COMM_WORLD, &q[d]);
                MPI_Waitall(ndown, q, st);
            }
            double t = now() - t0, slowest;
            if (it == 0)
                for (int u = 0; u < nup; u++)
                    check(rbuf[u], parts, size, it, variant == 0 ? "sweep partitioned" : "sweep send");
            MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            if (it >= warm)
                ts[it - warm] = slowest;
        }
        if (rank == 0)
            row("partsweep %s %d %s %.3f\n", variant == 0 ? "part" : "send", parts, human(size, h), median(ts, n) * 1e6);
    }
    free(ts);
    for (int u = 0; u < nup; u++) {
        if (u < nrr)
            p_free(&rr[u]);
        free(rbuf[u]);
    }
    for (int d = 0; d < ndown; d++) {
        if (d < nsr)
            p_free(&sr[d]);
        free(sbuf[d]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static void sweep_mode(void)
{
    for (int i = 0; i < nparts; i++)
        for (long size = 1024; size <= maxsize; size = next_size(size))
            if (divides(parts_list[i], size))
                sweep_rows(parts_list[i], size);
}

/* ---- strategies ---- */

static void strategies_mode(int perceived)
{
#if LIB_MPIX
    static const char *strategies[] = {MPIX_PART_AGGR_NONE, MPIX_PART_AGGR_TABLE, MPIX_PART_AGGR_PLOGGP,
                                       MPIX_PART_AGGR_TIMER_PLOGGP};
    const int nstrat = 4;
#else
    static const char *strategies[] = {LIB_LABEL};
    const int nstrat = 1;
#endif
    char *buf = malloc(maxsize), h[32], cl[32];
    memset(buf, 0, maxsize);
    compute_label(cl);
    for (int s = 0; s < nstrat; s++) {
        MPI_Info info = MPI_INFO_NULL;
        char what[64];
        snprintf(what, sizeof what, "%s", strategies[s]);
#if LIB_MPIX
        MPI_Info_create(&info);
        MPI_Info_set(info, MPIX_INFO_PART_AGGREGATION, strategies[s]);
#endif
        unsigned seed = 12345;
        int refused = 0;
        for (int i = 0; i < nparts && !refused; i++) {
            int parts = parts_list[i];
            for (long size = 1024; size <= maxsize && !refused; size = next_size(size)) {
                if (!divides(parts, size))
                    continue;
                if (perceived) {
                    double bw = perceived_row(buf, parts, size, info, what, &seed);
                    refused = bw < 0;
                    if (!refused && rank == 1)
                        row("partstratbw %s %s %g%% %d %s %.3f\n", strategies[s], cl, noise_pct, parts, human(size, h), bw);
                } else {
                    double t = overhead_row(buf, parts, size, info, what);
                    refused = t < 0;
                    if (!refused && rank == 0)
                        row("partstrat %s %d %s %.3f\n", strategies[s], parts, human(size, h), t * 1e6);
                }
            }
        }
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
    }
    free(buf);
}

/* ---- main ---- */

static int parse_list(const char *s)
{
    nparts = parse_ints(s, parts_list, MAXLIST, MAXPARTS);
    return nparts > 0;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: part overhead|perceived|sweep|strategies [overhead|perceived] [-parts 4,32,...] "
                        "[-maxsize BYTES] [-budget S] [-compute US] [-noise PCT] [-iters N]\n"
                        "       (2 processes; sweep: 4)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    const char *what = argc > 1 ? argv[1] : "";
    int strat_perceived = -1, i = 2;
    if (strcmp(what, "strategies") == 0 && argc > 2) {
        strat_perceived = strcmp(argv[2], "perceived") == 0 ? 1 : strcmp(argv[2], "overhead") == 0 ? 0 : -1;
        i = 3;
    }
    int sweep = strcmp(what, "sweep") == 0;
    int ok = (strcmp(what, "overhead") == 0 || strcmp(what, "perceived") == 0 || sweep || strat_perceived >= 0) &&
             nprocs == (sweep ? 4 : 2);
    if (getenv("PART_MAXSIZE"))
        maxsize = atol(getenv("PART_MAXSIZE"));
    else if (sweep)
        maxsize = 4L << 20;
    else if (strat_perceived >= 0)
        maxsize = 16L << 20;
    if (strat_perceived >= 0)
        parse_list("32");
    else if (sweep)
        parse_list("4,32");
    else if (strcmp(what, "perceived") == 0)
        parse_list("4,32");
    else
        parse_list("4,32,128");
    for (; ok && i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            ok = 0;
        else if (strcmp(a, "-parts") == 0)
            ok = parse_list(v);
        else if (strcmp(a, "-maxsize") == 0)
            ok = (maxsize = atol(v)) >= 1024;
        else if (strcmp(a, "-budget") == 0)
            ok = (budget = atof(v)) > 0;
        else if (strcmp(a, "-compute") == 0)
            ok = (compute_us = atof(v)) >= 0;
        else if (strcmp(a, "-noise") == 0)
            ok = (noise_pct = atof(v)) >= 0;
        else if (strcmp(a, "-iters") == 0)
            ok = (iters = atoi(v)) > 0;
        else
            ok = 0;
        i++;
    }
    if (!ok || maxsize < 1024)
        usage();
    if (compute_us < 0)
        compute_us = sweep ? 50 : 1000;
    if (provided < MPI_THREAD_MULTIPLE && omp_get_max_threads() > 1) {
        note("MPI_Init_thread provided a level below MPI_THREAD_MULTIPLE: one OpenMP thread");
        omp_set_num_threads(1);
    }
#ifdef PART_EMULATE
    MPI_Comm_dup(MPI_COMM_WORLD, &ecomm);
#endif
    if (strat_perceived >= 0)
        strategies_mode(strat_perceived);
    else if (strcmp(what, "overhead") == 0)
        overhead_mode();
    else if (strcmp(what, "perceived") == 0)
        perceived_mode();
    else
        sweep_mode();
#ifdef PART_EMULATE
    MPI_Comm_free(&ecomm);
#endif
    MPI_Finalize();
    return 0;
}

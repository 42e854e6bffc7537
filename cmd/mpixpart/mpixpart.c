/* mpixpart measures the two files mpix's partitioned aggregation strategies read
 * ([PA] sec. IV-B and IV-C; include/mpix.h sec. 4), on 2 processes:
 *
 *     mpixexec -n 2 build/bin/mpixpart loggp [-maxsize BYTES] [-budget S] > loggp.txt
 *     mpixexec -n 2 build/bin/mpixpart table [-maxsize BYTES] [-budget S] [-step 2|4]
 *                                            [-parts LIST] > table.txt
 *
 * Both print to standard output (rank 0) one line per measurement, '#' lines being
 * comments, with the transport in the first field: "ofi" when MPIX_SHM=0 (libfabric),
 * else "shm". `make part-calibrate` runs both over shm and ofi and writes part/loggp.txt
 * and part/table.txt, the defaults the library ships.
 *
 * loggp: the LogGP parameters (MPIX_PART_LOGGP's format), one line per message size
 * k = 1 B, 2 B, 4 B, ... MAXSIZE (default 64 MiB):
 *
 *     transport bytes L_us os_us or_us g_us G_us_per_byte
 *
 * measured with plain MPI point-to-point in the spirit of Netgauge's LogGP method
 * (Hoefler et al., "Assessing the LogGP parameters"), simplified:
 *   - rtt(k): MPI_Isend + MPI_Wait then MPI_Recv at rank 0 against MPI_Recv then
 *     MPI_Send at rank 1, the median round trip;
 *   - o_s(k): the time rank 0 spends in that MPI_Isend call (the median);
 *   - o_r(k): rank 0 sends k bytes; rank 1 polls MPI_Iprobe until the message is there,
 *     then times its MPI_Recv call (the median; a 0-byte acknowledgement separates the
 *     repetitions). For a message too large to travel before the receive (rendezvous)
 *     this includes the transfer;
 *   - gap(k): rank 1 pre-posts n receives and says so with a 0-byte message; rank 0
 *     sends n messages back to back (MPI_Isend each, one MPI_Waitall) and waits for
 *     rank 1's 0-byte acknowledgement that all arrived. gap(k) = (T(n) - T(1)) / (n - 1)
 *     with T the median time of that from the first MPI_Isend to the acknowledgement
 *     (n = 256, so that the stream outweighs the acknowledgement's round trip; fewer
 *     while n buffers of k bytes would pass 32 MiB, at least 2);
 *   - G(k), the per-byte gap: the least-squares slope of gap over the sizes k/8, k/4,
 *     k/2 and k (the sizes from 1 B below 8 B; k = 1: G(2)), at least 0;
 *   - g(k) = gap(k) - G(k) (k - 1), the per-message part of the gap, at least 0;
 *   - L(k) = rtt(k) / 2 - o_s(k) - o_r(k) - G(k) (k - 1), LogGP's one-way time
 *     o_s + G(k-1) + L + o_r solved for L, at least 0.
 * Each quantity is the median over repetitions fitting BUDGET (default 0.25 s a size
 * in all), at least 5.
 *
 * table: the tuning table (MPIX_PART_TABLE's format),
 *
 *     transport user_partitions bytes transport_partitions num_qps
 *
 * from the overhead benchmark of [PA] sec. V-B (bench/part.c overhead): for user
 * partitions 4, 8, 16, 32, 64, 128 and total sizes 1 KiB, 4 KiB, ... 16 MiB (-step 2:
 * every power of two), for every power-of-two transport partition count dividing the
 * user partitions, forced on MPI_Psend_init with the info keys
 * mpix_part_aggregation=none, mpix_part_transport_partitions=T and mpix_part_num_qps=1,
 * it times rounds (MPI_Start, MPI_Pready of every partition from an OpenMP parallel
 * loop, MPI_Wait; the receiver's MPI_Start and MPI_Wait and a 0-byte acknowledgement)
 * and prints, per (user partitions, size), the transport partition count with the
 * fastest median round. A row: one round, runs doubling until one takes 2 ms (the
 * estimate), a tenth of the count as warm-up, then rounds for BUDGET seconds (default
 * 0.08, at least 5) in up to 8 chunks: the median over the chunks of the mean round.
 * Where the library reports the count it used (MPIX_Part_get_info, once mpix.h defines
 * MPIX_HAVE_PART_AGGREGATION) and it differs, the line is for the count used and a
 * comment says so. A library that refuses MPI_Psend_init/MPI_Precv_init ends the
 * program with status 1 and the reason on standard error.
 *
 * Times come from clock_gettime(CLOCK_MONOTONIC) (MPI_Wtime enters Go on mpix). */
#define _GNU_SOURCE
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include <mpix.h>

#define TAG_DATA 1
#define TAG_ACK 2
#define TAG_CTRL 3
#define STREAM_MAX 256
#define STREAM_BYTES (32L << 20)
#define MAXPARTS 128
#define CHUNKS 8

static int rank;
static long maxsize = -1;
static double budget = -1;
static int step = 4;
static int parts_list[16] = {4, 8, 16, 32, 64, 128}, nparts = 6;
static const char *transport = "shm";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* median sorts v and returns the median of its n values. */
static double median(double *v, int n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mpixpart: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

/* header prints the comment lines that open either file. */
static void header(const char *what, const char *columns)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], host[256] = "?";
    int len;
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl)
        *nl = 0;
    gethostname(host, sizeof host - 1);
    time_t t = time(NULL);
    char date[64];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M %Z", localtime(&t));
    printf("# mpixpart %s, transport %s (MPIX_SHM=%s), 2 processes on %s, %ld CPUs, %s\n", what, transport,
           getenv("MPIX_SHM") ? getenv("MPIX_SHM") : "unset", host, sysconf(_SC_NPROCESSORS_ONLN), date);
    printf("# library: %s\n", lib);
    printf("# %s\n", columns);
}

/* ---- loggp ---- */

/* reps_for: rank 0 picks how many repetitions of a unit taking per seconds fit share
 * seconds (between least and most) and tells rank 1. */
static int reps_for(double per, double share, int least, int most)
{
    int r = per > 0 ? (int)(share / per) : most;
    r = r < least ? least : r > most ? most : r;
    MPI_Bcast(&r, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return r;
}

/* pingpong runs reps round trips of k bytes; at rank 0 it fills rtt and os. */
static void pingpong(char *buf, long k, int reps, double *rtt, double *os)
{
    for (int i = 0; i < reps; i++) {
        if (rank == 0) {
            MPI_Request r;
            double t0 = now();
            MPI_Isend(buf, (int)k, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &r);
            double t1 = now();
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            MPI_Recv(buf, (int)k, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t2 = now();
            if (rtt)
                rtt[i] = t2 - t0, os[i] = t1 - t0;
        } else {
            MPI_Recv(buf, (int)k, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, (int)k, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }
}

/* recv_overhead: reps messages of k bytes, each received (rank 1) once MPI_Iprobe sees
 * it; returns the median receive call at rank 1 (sent to rank 0). */
static double recv_overhead(char *buf, long k, int reps, double *v)
{
    for (int i = 0; i < reps; i++) {
        if (rank == 0) {
            MPI_Send(buf, (int)k, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            int flag = 0;
            while (!flag)
                MPI_Iprobe(0, TAG_DATA, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            double t0 = now();
            MPI_Recv(buf, (int)k, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v[i] = now() - t0;
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    double m = rank == 1 ? median(v, reps) : 0;
    MPI_Bcast(&m, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
    return m;
}

/* stream: reps times n back-to-back messages of k bytes into rank 1's pre-posted
 * receives (rbuf: n * k bytes); returns at rank 0 the median time from the first
 * MPI_Isend to rank 1's acknowledgement that all arrived. */
static double stream(char *sbuf, char *rbuf, long k, int n, int reps, double *v)
{
    MPI_Request req[STREAM_MAX];
    for (int i = 0; i < reps; i++) {
        if (rank == 0) {
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            double t0 = now();
            for (int j = 0; j < n; j++)
                MPI_Isend(sbuf, (int)k, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &req[j]);
            MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v[i] = now() - t0;
        } else {
            for (int j = 0; j < n; j++)
                MPI_Irecv(rbuf + j * k, (int)k, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &req[j]);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_CTRL, MPI_COMM_WORLD);
            MPI_Waitall(n, req, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
    return rank == 0 ? median(v, reps) : 0;
}

static int loggp(void)
{
    if (maxsize < 0)
        maxsize = 64L << 20;
    if (budget < 0)
        budget = 0.25;
    int nsizes = 0;
    for (long k = 1; k <= maxsize; k *= 2)
        nsizes++;
    long *size = calloc(nsizes, sizeof(long));
    double *half = calloc(nsizes, sizeof(double)), *os = calloc(nsizes, sizeof(double)),
           *orr = calloc(nsizes, sizeof(double)), *gap = calloc(nsizes, sizeof(double));
    long rbytes = maxsize * 2 > STREAM_BYTES ? maxsize * 2 : STREAM_BYTES;
    char *sbuf = malloc(maxsize), *rbuf = malloc(rbytes);
    double *v1 = malloc(sizeof(double) * 1000), *v2 = malloc(sizeof(double) * 1000); /* reps <= 1000 */
    memset(sbuf, 1, maxsize);
    memset(rbuf, 0, rbytes);
    if (rank == 0)
        header("loggp: Netgauge-style LogGP parameters from MPI point-to-point (see cmd/mpixpart/mpixpart.c)",
               "transport bytes L_us os_us or_us g_us G_us_per_byte");
    /* warm-up: the first exchanges of a job (connections, first touch) are slow */
    pingpong(sbuf, 1, 1000, NULL, NULL);
    stream(sbuf, rbuf, 1, STREAM_MAX, 20, v1);
    int i = 0;
    for (long k = 1; k <= maxsize; k *= 2, i++) {
        size[i] = k;
        /* estimate one round trip (after a warm-up one) */
        pingpong(sbuf, k, 1, NULL, NULL);
        double t = now();
        pingpong(sbuf, k, 3, NULL, NULL);
        double per = (now() - t) / 3;
        MPI_Bcast(&per, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        /* a quarter of the budget each for the round trips and the receives, half for the streams */
        int reps = reps_for(per, budget / 4, 5, 1000);
        pingpong(sbuf, k, reps / 10 + 1, NULL, NULL); /* warm-up */
        pingpong(sbuf, k, reps, v1, v2);
        if (rank == 0) {
            half[i] = median(v1, reps) / 2;
            os[i] = median(v2, reps);
        }
        orr[i] = recv_overhead(sbuf, k, reps, v1);
        int n = STREAM_MAX;
        while (n > 2 && (long)n * k > STREAM_BYTES)
            n /= 2;
        int sreps = reps_for(per * (n + 1) / 2, budget / 2, 5, 500);
        double tn = stream(sbuf, rbuf, k, n, sreps, v1);
        double t1 = stream(sbuf, rbuf, k, 1, sreps, v2);
        gap[i] = (tn - t1) / (n - 1);
        if (gap[i] < 0)
            gap[i] = 0;
    }
    if (rank == 0) {
        double *G = calloc(nsizes, sizeof(double));
        for (i = 1; i < nsizes; i++) {
            /* least-squares slope of gap over k/8, k/4, k/2, k (fewer points below 8 B) */
            int lo = i >= 3 ? i - 3 : 0, m = i - lo + 1;
            double sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (int j = lo; j <= i; j++) {
                double x = (double)size[j], y = gap[j];
                sx += x, sy += y, sxx += x * x, sxy += x * y;
            }
            double den = m * sxx - sx * sx;
            G[i] = den > 0 ? (m * sxy - sx * sy) / den : 0;
            if (G[i] < 0)
                G[i] = 0;
        }
        G[0] = nsizes > 1 ? G[1] : 0;
        for (i = 0; i < nsizes; i++) {
            double k1 = (double)(size[i] - 1);
            double g = gap[i] - G[i] * k1;
            double L = half[i] - os[i] - orr[i] - G[i] * k1;
            printf("%s %ld %.6g %.6g %.6g %.6g %.6g\n", transport, size[i], (L > 0 ? L : 0) * 1e6, os[i] * 1e6,
                   orr[i] * 1e6, (g > 0 ? g : 0) * 1e6, G[i] * 1e6);
        }
        fflush(stdout);
        free(G);
    }
    free(size), free(half), free(os), free(orr), free(gap), free(sbuf), free(rbuf), free(v1), free(v2);
    return 0;
}

/* ---- table ---- */

typedef struct {
    MPI_Request req;
    char *buf;
    int parts;
    long size;
} tctx;

/* rounds runs k overhead rounds on both ranks. */
static void rounds(tctx *c, long k)
{
    for (long i = 0; i < k; i++) {
        MPI_Start(&c->req);
        if (rank == 0) {
            MPI_Request req = c->req;
#pragma omp parallel for schedule(static)
            for (int p = 0; p < c->parts; p++)
                MPI_Pready(p, req);
            MPI_Wait(&c->req, MPI_STATUS_IGNORE);
            MPI_Recv(NULL, 0, MPI_BYTE, 1, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Wait(&c->req, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_ACK, MPI_COMM_WORLD);
        }
    }
}

/* run_k: rank 0 tells rank 1 to run k rounds (0: done) and times them. */
static double run_k(tctx *c, long k)
{
    MPI_Send(&k, 1, MPI_LONG, 1, TAG_CTRL, MPI_COMM_WORLD);
    double t = now();
    rounds(c, k);
    return now() - t;
}

/* time_rounds returns at rank 0 the seconds per round (see the file comment). */
static double time_rounds(tctx *c)
{
    if (rank == 1) {
        long k;
        for (;;) {
            MPI_Recv(&k, 1, MPI_LONG, 0, TAG_CTRL, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (k == 0)
                return 0;
            rounds(c, k);
        }
    }
    run_k(c, 1);
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

/* used_transport_partitions is the count the library reports for the send request, or
 * asked when it reports none. */
static int used_transport_partitions(MPI_Request req, int asked)
{
#ifdef MPIX_HAVE_PART_AGGREGATION
    MPI_Info info;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    if (MPIX_Part_get_info(req, &info) == MPI_SUCCESS) {
        MPI_Info_get(info, MPIX_INFO_PART_TRANSPORT_PARTITIONS, MPI_MAX_INFO_VAL, v, &flag);
        MPI_Info_free(&info);
        if (flag && atoi(v) > 0)
            return atoi(v);
    }
#else
    (void)req;
#endif
    return asked;
}

/* one_config times one (user partitions, size, transport partitions) configuration:
 * it returns seconds per round at rank 0 (0 at rank 1), -1 on all ranks when the
 * library refused the requests; *used is the transport partition count the library
 * reports using (rank 0). */
static double one_config(char *buf, int up, long size, int tp, int *used)
{
    tctx c = {MPI_REQUEST_NULL, buf, up, size};
    MPI_Info info;
    char v[32];
    MPI_Info_create(&info);
    MPI_Info_set(info, MPIX_INFO_PART_AGGREGATION, MPIX_PART_AGGR_NONE);
    snprintf(v, sizeof v, "%d", tp);
    MPI_Info_set(info, MPIX_INFO_PART_TRANSPORT_PARTITIONS, v);
    MPI_Info_set(info, MPIX_INFO_PART_NUM_QPS, "1");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = rank == 0 ? MPI_Psend_init(buf, up, size / up, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, info, &c.req)
                       : MPI_Precv_init(buf, up, size / up, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, MPI_INFO_NULL, &c.req);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Info_free(&info);
    int ok = rc == MPI_SUCCESS, all;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (!ok) {
            char s[MPI_MAX_ERROR_STRING];
            int len;
            MPI_Error_string(rc, s, &len);
            fail("rank %d: %s: %s: the table needs partitioned communication with the mpix_part_* info keys", rank,
                 rank == 0 ? "MPI_Psend_init" : "MPI_Precv_init", s);
        } else
            MPI_Request_free(&c.req);
        return -1;
    }
    double s = time_rounds(&c);
    if (rank == 0)
        *used = used_transport_partitions(c.req, tp);
    MPI_Request_free(&c.req);
    return s;
}

static int table(void)
{
    if (maxsize < 0)
        maxsize = 16L << 20;
    if (budget < 0)
        budget = 0.08;
    char *buf = malloc(maxsize);
    memset(buf, 0, maxsize);
    if (rank == 0) {
        header("table: fastest forced transport partition count per (user partitions, size), overhead rounds "
               "(see cmd/mpixpart/mpixpart.c)",
               "transport user_partitions bytes transport_partitions num_qps");
        printf("# %d OpenMP threads call MPI_Pready; mpix_part_aggregation=none, mpix_part_num_qps=1\n",
               omp_get_max_threads());
        fflush(stdout);
    }
    for (int i = 0; i < nparts; i++) {
        int up = parts_list[i];
        for (long size = 1024; size <= maxsize; size *= step) {
            if (size % up != 0)
                continue;
            double best = 0;
            int best_tp = 0;
            for (int tp = 1; tp <= up; tp *= 2) {
                if (up % tp != 0)
                    continue;
                int used = tp;
                double s = one_config(buf, up, size, tp, &used);
                if (s < 0) {
                    free(buf);
                    return 1;
                }
                if (rank == 0) {
                    if (used != tp)
                        printf("# %d user partitions, %ld bytes: asked for %d transport partitions, the library used %d\n",
                               up, size, tp, used);
                    if (best_tp == 0 || s < best)
                        best = s, best_tp = used;
                }
            }
            if (rank == 0) {
                printf("%s %d %ld %d 1\n", transport, up, size, best_tp);
                fflush(stdout);
            }
        }
    }
    free(buf);
    return 0;
}

/* ---- main ---- */

static int parse_list(const char *s)
{
    nparts = 0;
    while (*s && nparts < 16) {
        char *end;
        long n = strtol(s, &end, 10);
        if (end == s || n < 1 || n > MAXPARTS || (n & (n - 1)) || (*end && *end != ','))
            return 0;
        parts_list[nparts++] = (int)n;
        s = *end == ',' ? end + 1 : end;
    }
    return nparts > 0;
}

int main(int argc, char **argv)
{
    int provided, np;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *mode = argc > 1 ? argv[1] : "";
    int is_loggp = strcmp(mode, "loggp") == 0, ok = is_loggp || strcmp(mode, "table") == 0;
    for (int i = 2; ok && i < argc; i += 2) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            ok = 0;
        else if (strcmp(argv[i], "-maxsize") == 0)
            ok = (maxsize = atol(v)) >= 1;
        else if (strcmp(argv[i], "-budget") == 0)
            ok = (budget = atof(v)) > 0;
        else if (strcmp(argv[i], "-step") == 0)
            ok = (step = atoi(v)) == 2 || step == 4;
        else if (strcmp(argv[i], "-parts") == 0)
            ok = parse_list(v);
        else
            ok = 0;
    }
    if (!ok || np != 2) {
        if (rank == 0)
            fprintf(stderr, "usage: mpixexec -n 2 mpixpart loggp|table [-maxsize BYTES] [-budget SECONDS] "
                            "[-step 2|4] [-parts 4,8,...] (MPIX_SHM=0: the ofi transport)\n");
        MPI_Finalize();
        return 2;
    }
    if (provided < MPI_THREAD_MULTIPLE)
        omp_set_num_threads(1);
    const char *shm = getenv("MPIX_SHM");
    transport = shm && strcmp(shm, "0") == 0 ? "ofi" : "shm";
    int rc = is_loggp ? loggp() : table();
    MPI_Finalize();
    return rc;
}

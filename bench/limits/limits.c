/* limits: this machine's limits for the benchmark summary, measured without MPI.
 *
 *   limit cacheline_ns NS      one-way latency of a cache line bounced between two
 *                              threads pinned to two different CPUs (half a round trip)
 *   limit cacheline_median_ns NS   the same, median instead of best repetition
 *   limit memcpy_1MiB MB/s     memcpy bandwidth, 1 MiB buffers (bytes copied per second,
 *   limit memcpy_64MiB MB/s    1 MB = 10^6 bytes), and with 64 MiB buffers
 *
 * A limit is what the hardware can do, and a busy machine only ever makes a repetition
 * slower, so each figure is the best of several repetitions (21 short ones for the
 * cache line, 5 for memcpy). On a virtual machine the two CPUs may at times be
 * hyperthreads of one core, which the best cache-line figure then shows; the median
 * is the typical case. Built with plain cc by bench/driver:
 * cc -O2 -pthread -o limits limits.c */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE_REPS 21
#define COPY_REPS 5
#define BOUNCES 20000

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}


/* The bounced line: alone in its 64-byte line (and the next, against adjacent-line
 * prefetch). */
static _Alignas(128) _Atomic long line;

struct bouncer {
    int cpu, parity;
    double secs;
};

static void *bounce(void *arg)
{
    struct bouncer *b = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(b->cpu, &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        return (void *)1;
    /* Each thread waits for the value of its parity and writes the next one. */
    double t0 = now();
    for (long v = b->parity; v < 2L * BOUNCES; v += 2) {
        while (atomic_load_explicit(&line, memory_order_acquire) != v)
            ;
        atomic_store_explicit(&line, v + 1, memory_order_release);
    }
    b->secs = now() - t0;
    return NULL;
}

/* cacheline_ns measures LINE_REPS repetitions into v, sorted; 0 on failure. */
static int cacheline_ns(int cpu0, int cpu1, double *v)
{
    for (int r = 0; r < LINE_REPS; r++) {
        struct bouncer a = {cpu0, 0, 0}, b = {cpu1, 1, 0};
        pthread_t ta, tb;
        atomic_store(&line, -1);
        pthread_create(&ta, NULL, bounce, &a);
        pthread_create(&tb, NULL, bounce, &b);
        atomic_store(&line, 0);
        void *ra, *rb;
        pthread_join(ta, &ra);
        pthread_join(tb, &rb);
        if (ra || rb)
            return 0;
        /* 2*BOUNCES one-way transfers; thread a's time spans all of them. */
        v[r] = a.secs * 1e9 / (2.0 * BOUNCES);
    }
    qsort(v, LINE_REPS, sizeof *v, cmp);
    return 1;
}

static double memcpy_mbs(size_t size)
{
    char *src = malloc(size), *dst = malloc(size);
    memset(src, 1, size);
    memset(dst, 2, size);
    long copies = (1L << 30) / size; /* 1 GiB per repetition, at most 2000 copies */
    if (copies > 2000)
        copies = 2000;
    if (copies < 8)
        copies = 8;
    double best = 0;
    for (int r = 0; r < COPY_REPS; r++) {
        double t0 = now();
        for (long i = 0; i < copies; i++) {
            memcpy(dst, src, size);
            __asm__ volatile("" : : "r"(dst) : "memory");
        }
        double mbs = (double)size * copies / (now() - t0) / 1e6;
        if (mbs > best)
            best = mbs;
    }
    free(src);
    free(dst);
    return best;
}

int main(void)
{
    cpu_set_t set;
    int cpus[2], n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        for (int c = 0; c < CPU_SETSIZE && n < 2; c++)
            if (CPU_ISSET(c, &set))
                cpus[n++] = c;
    if (n == 2) {
        double v[LINE_REPS];
        if (cacheline_ns(cpus[0], cpus[1], v)) {
            printf("limit cacheline_ns %.1f\n", v[0]);
            printf("limit cacheline_median_ns %.1f\n", v[LINE_REPS / 2]);
        }
    }
    printf("limit memcpy_1MiB %.0f\n", memcpy_mbs(1 << 20));
    printf("limit memcpy_64MiB %.0f\n", memcpy_mbs(64 << 20));
    return 0;
}

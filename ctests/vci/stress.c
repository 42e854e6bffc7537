/* MPI_THREAD_MULTIPLE stress: 8 threads per process, each with a private communicator
 * (a dup of MPI_COMM_WORLD, so most get a VCI of their own), all sharing MPI_COMM_WORLD
 * and one more dup for point-to-point. Every round a thread exchanges a random mix of
 * messages (0 bytes to 100 KB: eager and rendezvous) with the same thread on its ring
 * neighbours, sometimes receiving with MPI_ANY_SOURCE/MPI_ANY_TAG, completes them with
 * MPI_Waitall, MPI_Testall, MPI_Waitany or MPI_Waitsome, and runs one collective
 * (blocking or not) on its private communicator. Every received byte and every
 * collective result is checked, and the message totals must balance at the end.
 *
 * The sequence of each round is drawn from a generator seeded by (thread, round) only,
 * so every process makes the same calls in the same order on each private
 * communicator; the number of rounds is fixed (argv[1], default 300), not timed. A
 * watchdog prints where each thread is and aborts if the run exceeds argv[2] seconds
 * (default 90), so a hang is reported, not just killed. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "mpix_test.h"

#define NTHREADS 8
#define MAXMSG (100 * 1024)
#define MAXREQ 16

enum { C_SENT, C_RECVD, C_BYTES_SENT, C_BYTES_RECVD, C_ANYSRC, C_COLL, C_ICOLL, C_ROUNDS, NCOUNT };

static int rank, size, peer, from, rounds = 300;
static MPI_Comm priv[NTHREADS], shared;
static long long counts[NTHREADS][NCOUNT];
static atomic_int where_round[NTHREADS], where_phase[NTHREADS], finished;
static const char *phase_names[] = {"start", "post", "complete", "collective", "done"};
/* What each thread's current round does, for the watchdog's report. Read without
 * synchronisation: it is only printed when threads are stuck. */
static char plan[NTHREADS][512];

static void note(int t, const char *fmt, int a, int b, int c)
{
    size_t n = strlen(plan[t]);
    if (n < sizeof plan[t])
        snprintf(plan[t] + n, sizeof plan[t] - n, fmt, a, b, c);
}

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int pick(uint64_t *s, int n) { return (int)(next(s) % (uint64_t)n); }

/* A message size: zero, small, medium or up to 100 KB (rendezvous). */
static int msg_size(uint64_t *s)
{
    int c = pick(s, 10);
    if (c == 0)
        return 0;
    if (c < 5)
        return 1 + pick(s, 256);
    if (c < 8)
        return 257 + pick(s, 16 * 1024);
    return 16 * 1024 + pick(s, MAXMSG - 16 * 1024 + 1);
}

/* The byte at offset i of message (sender, thread, round, slot). */
static unsigned char pattern(int sender, int t, int round, int slot, int i)
{
    return (unsigned char)(sender * 131 + t * 31 + round * 7 + slot * 13 + i * 3 + (i >> 8));
}

struct msg {
    MPI_Comm comm;
    int tag, len, slot;
    int anysrc, anytag; /* receive side only */
};

struct recvslot {
    unsigned char *buf;
    struct msg m;
    int req; /* index in the request array */
};

/* Checks one completed receive against what the sender must have sent. */
static void check_recv(int t, int round, const struct recvslot *r, const MPI_Status *st,
                       const struct msg *msgs, int nmsgs)
{
    const struct msg *m = &r->m;
    CHECK(st->MPI_SOURCE == from, "thread %d round %d slot %d: source %d, want %d", t, round,
          m->slot, st->MPI_SOURCE, from);
    if (m->anytag) {
        /* The tag says which of this round's private messages arrived. */
        m = NULL;
        for (int i = 0; i < nmsgs; i++)
            if (msgs[i].comm == priv[t] && msgs[i].tag == st->MPI_TAG)
                m = &msgs[i];
        CHECK(m != NULL, "thread %d round %d: unexpected tag %d", t, round, st->MPI_TAG);
    } else {
        CHECK(st->MPI_TAG == m->tag, "thread %d round %d slot %d: tag %d, want %d", t, round,
              m->slot, st->MPI_TAG, m->tag);
    }
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(n == m->len, "thread %d round %d slot %d: %d bytes, want %d", t, round, m->slot, n,
          m->len);
    for (int i = 0; i < n; i++)
        CHECK(r->buf[i] == pattern(from, t, round, m->slot, i),
              "thread %d round %d slot %d (%d bytes): byte %d is %d, want %d", t, round,
              m->slot, n, i, r->buf[i], pattern(from, t, round, m->slot, i));
    counts[t][C_RECVD]++;
    counts[t][C_BYTES_RECVD] += n;
    if (r->m.anysrc)
        counts[t][C_ANYSRC]++;
}

/* The round's collective on the private communicator: started here, completed by
 * check_coll. Nonblocking ones join the point-to-point requests. */
struct coll {
    int kind, blocking, count, root;
    int *in, *out;
    unsigned char *bytes;
};

static void start_coll(int t, int round, uint64_t *s, struct coll *c, MPI_Request *req)
{
    MPI_Comm comm = priv[t];
    c->kind = pick(s, 4);
    c->count = c->root = 0;
    c->blocking = pick(s, 2);
    *req = MPI_REQUEST_NULL;
    switch (c->kind) {
    case 0: /* Allreduce of ints: element i sums to sum_r (r + i + round). */
        c->count = 1 + pick(s, 2000);
        for (int i = 0; i < c->count; i++)
            c->in[i] = rank + i + round + t;
        if (c->blocking)
            CHECK_OK(MPI_Allreduce(c->in, c->out, c->count, MPI_INT, MPI_SUM, comm));
        else
            CHECK_OK(MPI_Iallreduce(c->in, c->out, c->count, MPI_INT, MPI_SUM, comm, req));
        break;
    case 1: /* Bcast of bytes from a rotating root, up to 64 KB. */
        c->count = pick(s, 64 * 1024);
        c->root = (round + t) % size;
        for (int i = 0; i < c->count; i++)
            c->bytes[i] = rank == c->root ? pattern(c->root, t, round, 99, i) : 0;
        if (c->blocking)
            CHECK_OK(MPI_Bcast(c->bytes, c->count, MPI_BYTE, c->root, comm));
        else
            CHECK_OK(MPI_Ibcast(c->bytes, c->count, MPI_BYTE, c->root, comm, req));
        break;
    case 2:
        if (c->blocking)
            CHECK_OK(MPI_Barrier(comm));
        else
            CHECK_OK(MPI_Ibarrier(comm, req));
        break;
    case 3: /* Allgather: block r holds r*1000 + i + round. */
        c->count = 1 + pick(s, 500);
        for (int i = 0; i < c->count; i++)
            c->in[i] = rank * 1000 + i + round;
        if (c->blocking)
            CHECK_OK(MPI_Allgather(c->in, c->count, MPI_INT, c->out, c->count, MPI_INT, comm));
        else
            CHECK_OK(MPI_Iallgather(c->in, c->count, MPI_INT, c->out, c->count, MPI_INT, comm,
                                    req));
        break;
    }
    note(t, " coll kind %d blocking %d count %d;", c->kind, c->blocking, c->count);
    counts[t][c->blocking ? C_COLL : C_ICOLL]++;
}

static void check_coll(int t, int round, const struct coll *c)
{
    switch (c->kind) {
    case 0:
        for (int i = 0; i < c->count; i++) {
            int want = size * (i + round + t) + size * (size - 1) / 2;
            CHECK(c->out[i] == want, "thread %d round %d: allreduce[%d] = %d, want %d", t, round,
                  i, c->out[i], want);
        }
        break;
    case 1:
        for (int i = 0; i < c->count; i++)
            CHECK(c->bytes[i] == pattern(c->root, t, round, 99, i),
                  "thread %d round %d: bcast from %d byte %d of %d is %d", t, round, c->root, i,
                  c->count, c->bytes[i]);
        break;
    case 3:
        for (int r = 0; r < size; r++)
            for (int i = 0; i < c->count; i++)
                CHECK(c->out[r * c->count + i] == r * 1000 + i + round,
                      "thread %d round %d: allgather block %d [%d] = %d", t, round, r, i,
                      c->out[r * c->count + i]);
        break;
    }
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned char *sbuf[MAXREQ], *rbuf[MAXREQ];
    for (int i = 0; i < MAXREQ; i++) {
        sbuf[i] = malloc(MAXMSG);
        rbuf[i] = malloc(MAXMSG);
    }
    struct coll c;
    c.in = malloc(2000 * sizeof(int));
    c.out = malloc((size_t)(size * 500 > 2000 ? size * 500 : 2000) * sizeof(int));
    c.bytes = malloc(64 * 1024);

    for (int round = 0; round < rounds; round++) {
        atomic_store(&where_round[t], round);
        atomic_store(&where_phase[t], 1);
        uint64_t s = ((uint64_t)t << 32 | (uint64_t)round) ^ 0x5eed5eed12345678ULL;
        next(&s);

        /* This round's messages: 0-3 on the private comm (distinct tags), 0-1 on
         * MPI_COMM_WORLD and 0-2 on the shared dup (tag = thread index there, so the
         * threads' messages cannot be confused). */
        struct msg msgs[MAXREQ / 2];
        int nm = 0, np = pick(&s, 4), nw = pick(&s, 2), ns = pick(&s, 3);
        for (int i = 0; i < np; i++)
            msgs[nm++] = (struct msg){priv[t], 1 + i, 0, 0, 0, 0};
        for (int i = 0; i < nw; i++)
            msgs[nm++] = (struct msg){MPI_COMM_WORLD, t, 0, 0, 0, 0};
        for (int i = 0; i < ns; i++)
            msgs[nm++] = (struct msg){shared, t, 0, 0, 0, 0};
        for (int i = 0; i < nm; i++) {
            msgs[i].slot = i;
            msgs[i].len = msg_size(&s);
            if (msgs[i].comm == priv[t]) {
                msgs[i].anysrc = pick(&s, 3) == 0;
                /* A wildcard tag is only safe with one private message in the round. */
                msgs[i].anytag = np == 1 && pick(&s, 2) == 0;
            }
        }

        plan[t][0] = 0;
        for (int i = 0; i < nm; i++)
            note(t, " msg comm %d tag %d len %d", msgs[i].comm == priv[t] ? 0 : msgs[i].comm == shared ? 2 : 1,
                 msgs[i].tag, msgs[i].len);

        /* Post receives and sends in a random interleaving; receives on one
         * (comm, tag) keep their order, as non-overtaking requires. */
        MPI_Request reqs[MAXREQ + 1];
        struct recvslot rs[MAXREQ];
        int nreq = 0, nr = 0, si = 0, ri = 0, sends_first = pick(&s, 3);
        while (si < nm || ri < nm) {
            int do_send = ri == nm || (si < nm && (sends_first == 0 ? 1 : sends_first == 1 ? 0 : pick(&s, 2)));
            if (do_send) {
                struct msg *m = &msgs[si];
                for (int i = 0; i < m->len; i++)
                    sbuf[si][i] = pattern(rank, t, round, m->slot, i);
                CHECK_OK(MPI_Isend(sbuf[si], m->len, MPI_BYTE, peer, m->tag, m->comm,
                                   &reqs[nreq++]));
                counts[t][C_SENT]++;
                counts[t][C_BYTES_SENT] += m->len;
                si++;
            } else {
                struct msg *m = &msgs[ri];
                rs[nr] = (struct recvslot){rbuf[ri], *m, nreq};
                memset(rbuf[ri], 0xee, m->len);
                CHECK_OK(MPI_Irecv(rbuf[ri], m->anytag ? MAXMSG : m->len, MPI_BYTE,
                                   m->anysrc ? MPI_ANY_SOURCE : from,
                                   m->anytag ? MPI_ANY_TAG : m->tag, m->comm, &reqs[nreq++]));
                nr++;
                ri++;
            }
        }

        /* A nonblocking collective completes with the messages, a blocking one runs
         * between posting and completing them. */
        int coll_before = pick(&s, 2);
        int coll_req = -1;
        if (coll_before) {
            atomic_store(&where_phase[t], 3);
            start_coll(t, round, &s, &c, &reqs[nreq]);
            if (reqs[nreq] != MPI_REQUEST_NULL)
                coll_req = nreq++;
        }

        atomic_store(&where_phase[t], 2);
        MPI_Status st[MAXREQ + 1];
        int mode = pick(&s, 4);
        note(t, " completion mode %d of %d requests (coll before %d);", mode, nreq, coll_before);
        if (mode == 0) {
            CHECK_OK(MPI_Waitall(nreq, reqs, st));
        } else if (mode == 1) {
            int flag = 0;
            while (!flag)
                CHECK_OK(MPI_Testall(nreq, reqs, &flag, st));
        } else if (mode == 2) {
            for (int k = 0; k < nreq; k++) {
                int idx = -1;
                MPI_Status one;
                CHECK_OK(MPI_Waitany(nreq, reqs, &idx, &one));
                CHECK(idx >= 0 && idx < nreq, "thread %d round %d: waitany index %d of %d", t,
                      round, idx, nreq);
                st[idx] = one;
            }
            int idx = 0;
            CHECK_OK(MPI_Waitany(nreq, reqs, &idx, MPI_STATUS_IGNORE));
            CHECK(idx == MPI_UNDEFINED, "waitany on no active request gave %d", idx);
        } else {
            int left = nreq;
            while (left > 0) {
                int outcount = 0, idx[MAXREQ + 1];
                MPI_Status some[MAXREQ + 1];
                CHECK_OK(MPI_Waitsome(nreq, reqs, &outcount, idx, some));
                CHECK(outcount >= 1 && outcount <= left, "thread %d round %d: waitsome gave %d of %d",
                      t, round, outcount, left);
                for (int k = 0; k < outcount; k++)
                    st[idx[k]] = some[k];
                left -= outcount;
            }
        }
        for (int k = 0; k < nreq; k++)
            CHECK(reqs[k] == MPI_REQUEST_NULL, "thread %d round %d: request %d not freed", t,
                  round, k);
        for (int k = 0; k < nr; k++)
            check_recv(t, round, &rs[k], &st[rs[k].req], msgs, nm);
        if (coll_req >= 0)
            check_coll(t, round, &c);

        if (!coll_before) {
            atomic_store(&where_phase[t], 3);
            MPI_Request r;
            start_coll(t, round, &s, &c, &r);
            if (r != MPI_REQUEST_NULL) {
                int flag = 0;
                if (pick(&s, 2))
                    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
                else
                    while (!flag)
                        CHECK_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
            }
            check_coll(t, round, &c);
        } else if (coll_req < 0) {
            check_coll(t, round, &c);
        }
        counts[t][C_ROUNDS]++;
    }
    atomic_store(&where_phase[t], 4);
    for (int i = 0; i < MAXREQ; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    free(c.in);
    free(c.out);
    free(c.bytes);
    return NULL;
}

/* Reports where every thread is and aborts if the run takes too long. */
static void *watchdog(void *arg)
{
    int limit = (int)(intptr_t)arg;
    for (int i = 0; i < limit * 10; i++) {
        if (atomic_load(&finished))
            return NULL;
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "rank %d: stress still running after %d s\n", rank, limit);
    for (int t = 0; t < NTHREADS; t++)
        fprintf(stderr, "rank %d thread %d: round %d, %s:%s\n", rank, t,
                atomic_load(&where_round[t]), phase_names[atomic_load(&where_phase[t])], plan[t]);
    fflush(stderr);
    _exit(3);
}

int main(int argc, char **argv)
{
    int provided, limit = 90;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (argc > 2)
        limit = atoi(argv[2]);
    peer = (rank + 1) % size;
    from = (rank - 1 + size) % size;

    /* Communicators are made before the threads start: creating them is collective. */
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &priv[t]);
    MPI_Comm_dup(MPI_COMM_WORLD, &shared);

    pthread_t dog, th[NTHREADS];
    pthread_create(&dog, NULL, watchdog, (void *)(intptr_t)limit);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    double elapsed = MPI_Wtime() - t0;
    atomic_store(&finished, 1);
    pthread_join(dog, NULL);

    long long local[NCOUNT] = {0}, total[NCOUNT] = {0};
    for (int t = 0; t < NTHREADS; t++) {
        CHECK(counts[t][C_ROUNDS] == rounds, "thread %d ran %lld rounds", t, counts[t][C_ROUNDS]);
        for (int k = 0; k < NCOUNT; k++)
            local[k] += counts[t][k];
    }
    CHECK_OK(MPI_Reduce(local, total, NCOUNT, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD));
    double maxel = 0;
    MPI_Reduce(&elapsed, &maxel, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        CHECK(total[C_SENT] == total[C_RECVD], "%lld messages sent, %lld received",
              total[C_SENT], total[C_RECVD]);
        CHECK(total[C_BYTES_SENT] == total[C_BYTES_RECVD], "%lld bytes sent, %lld received",
              total[C_BYTES_SENT], total[C_BYTES_RECVD]);
        CHECK(total[C_ROUNDS] == (long long)size * NTHREADS * rounds, "%lld rounds",
              total[C_ROUNDS]);
        CHECK(total[C_COLL] + total[C_ICOLL] == total[C_ROUNDS], "%lld collectives",
              total[C_COLL] + total[C_ICOLL]);
        printf("stress: %d processes x %d threads x %d rounds in %.2f s: %lld messages "
               "(%lld bytes, %lld MPI_ANY_SOURCE), %lld blocking and %lld nonblocking "
               "collectives, all checked\n",
               size, NTHREADS, rounds, maxel, total[C_SENT], total[C_BYTES_SENT],
               total[C_ANYSRC], total[C_COLL], total[C_ICOLL]);
    }
    for (int t = 0; t < NTHREADS; t++)
        MPI_Comm_free(&priv[t]);
    MPI_Comm_free(&shared);
    MPI_Finalize();
    return 0;
}

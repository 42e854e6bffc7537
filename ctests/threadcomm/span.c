/* A threadcomm that spans processes: each thread matches the messages of its own
 * process's threads (the C queues) and of the other processes' (which the engine
 * forwards into the same queues) in one place (threadcomm/, core/threadcomm.go:
 * tcForward). Checked here:
 *   - order per sender under MPI_ANY_SOURCE and MPI_ANY_TAG, with each sender mixing
 *     eager, rendezvous, synchronous and zero-byte messages, local and remote;
 *   - messages that reach a process's engine before its threads start the region
 *     (the engine keeps them, and hands them over first when the region starts);
 *   - regions repeated, each with its own traffic;
 *   - Mprobe/Mrecv and Iprobe of another process's large message, Sendrecv_replace
 *     and a derived datatype across processes, and Waitall over C receives and Go
 *     sends;
 *   - MPI_Irecv, MPI_Recv_init and MPI_Mrecv/MPI_Imrecv of a derived datatype, from
 *     this process and from another;
 *   - Waitsome, Testsome, Waitany and Testany over C and Go requests together;
 *   - MPI_Cancel of a receive, matched and not;
 *   - MPI_Isendrecv(_replace), a Test loop over another process's large message, and
 *     a receive from another process that must not keep its thread from taking a
 *     synchronous message from its own process;
 *   - the sends to this process's threads that C leaves to Go (derived datatypes,
 *     MPI_Count forms, persistent ones in every mode), buffered sends completing
 *     without their receivers, MPI_Request_free of a synchronous send that is not
 *     received yet, and the MPI_Request_get_status family over C requests.
 * Usage: tc_span THREADS */
#include <omp.h>
#include <stdint.h>
#include <unistd.h>
#include "mpix_test.h"
#include <mpix.h>

/* Message k of a sender: its size and how it is sent. 20000 bytes is past the C
 * queues' eager limit and 100000 past the engine's, so remote ones arrive as
 * messages the engine keeps until C matches them. */
#define NMSG 10
static int msg_size(int k) { static const int s[] = {8, 20000, 0, 100000, 8}; return s[k % 5]; }

static unsigned char val(int src, int k, int i) { return (unsigned char)(src * 13 + k * 7 + i); }

static void send_seq(MPI_Comm tc, int rank, int dest, unsigned char *buf)
{
    for (int k = 0; k < NMSG; k++) {
        int n = msg_size(k);
        for (int i = 0; i < n; i++)
            buf[i] = val(rank, k, i);
        if (k % 3 == 1)
            CHECK_OK(MPI_Ssend(buf, n, MPI_BYTE, dest, k, tc));
        else
            CHECK_OK(MPI_Send(buf, n, MPI_BYTE, dest, k, tc));
    }
}

/* everyone_to_one: every other rank sends its sequence to root, which takes them
 * with MPI_ANY_SOURCE and MPI_ANY_TAG and checks each sender's order. */
static void everyone_to_one(MPI_Comm tc, int rank, int size, int root)
{
    unsigned char *buf = malloc(100000);
    if (rank != root) {
        send_seq(tc, rank, root, buf);
        free(buf);
        return;
    }
    int *next = calloc((size_t)size, sizeof(int));
    for (int m = 0; m < (size - 1) * NMSG; m++) {
        MPI_Status st;
        CHECK_OK(MPI_Recv(buf, 100000, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, tc, &st));
        int src = st.MPI_SOURCE, k = st.MPI_TAG, n;
        CHECK(src >= 0 && src < size && src != root, "root %d: source %d", root, src);
        CHECK(k == next[src], "root %d: from %d got message %d, want %d", root, src, k, next[src]);
        MPI_Get_count(&st, MPI_BYTE, &n);
        CHECK(n == msg_size(k), "root %d: from %d message %d has %d bytes", root, src, k, n);
        for (int i = 0; i < n; i++)
            CHECK(buf[i] == val(src, k, i), "root %d: from %d message %d byte %d", root, src, k, i);
        next[src]++;
    }
    free(next);
    free(buf);
}

/* early: rank 0's process sends to every thread of the last process, which starts
 * its region 100 ms late; then a second message after the region surely began. */
static void early_messages(MPI_Comm tc, int rank, int size, int first_of_last)
{
    if (rank == 0)
        for (int d = first_of_last; d < size; d++) {
            int v[2] = {d, 1};
            CHECK_OK(MPI_Send(v, 2, MPI_INT, d, 5, tc));
        }
    CHECK_OK(MPI_Barrier(tc));
    if (rank == 0)
        for (int d = first_of_last; d < size; d++) {
            int v[2] = {d, 2};
            CHECK_OK(MPI_Send(v, 2, MPI_INT, d, 5, tc));
        }
    if (rank >= first_of_last)
        for (int k = 1; k <= 2; k++) {
            int v[2];
            MPI_Status st;
            CHECK_OK(MPI_Recv(v, 2, MPI_INT, MPI_ANY_SOURCE, 5, tc, &st));
            CHECK(st.MPI_SOURCE == 0 && v[0] == rank && v[1] == k, "early message %d: from %d (%d, %d)", k,
                  st.MPI_SOURCE, v[0], v[1]);
        }
}

/* The remote peer of rank: the same thread index in the next process's block. */
static void across(MPI_Comm tc, int rank, int size, int nt)
{
    int peer = (rank + nt) % size, from = (rank - nt + size) % size;
    enum { BIG = 300000 };
    unsigned char *b = malloc(BIG), *r = malloc(BIG);
    /* Mprobe and Iprobe of a large message from another process. */
    for (int i = 0; i < BIG; i++)
        b[i] = val(rank, 1, i);
    MPI_Request sreq;
    CHECK_OK(MPI_Isend(b, BIG, MPI_BYTE, peer, 11, tc, &sreq));
    int flag = 0;
    MPI_Status st;
    while (!flag)
        CHECK_OK(MPI_Iprobe(from, 11, tc, &flag, &st));
    int n;
    MPI_Get_count(&st, MPI_BYTE, &n);
    CHECK(n == BIG && st.MPI_SOURCE == from, "Iprobe: %d bytes from %d", n, st.MPI_SOURCE);
    MPI_Message m;
    CHECK_OK(MPI_Mprobe(MPI_ANY_SOURCE, 11, tc, &m, &st));
    CHECK(st.MPI_SOURCE == from, "Mprobe: from %d, want %d", st.MPI_SOURCE, from);
    CHECK_OK(MPI_Mrecv(r, BIG, MPI_BYTE, &m, &st));
    for (int i = 0; i < BIG; i++)
        CHECK(r[i] == val(from, 1, i), "Mrecv byte %d", i);
    CHECK_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

    /* Sendrecv_replace around the ring of processes. */
    int x[3] = {rank, rank * 2, rank * 3};
    CHECK_OK(MPI_Sendrecv_replace(x, 3, MPI_INT, peer, 12, from, 12, tc, &st));
    CHECK(x[0] == from && x[1] == from * 2 && x[2] == from * 3 && st.MPI_SOURCE == from, "Sendrecv_replace: %d %d %d",
          x[0], x[1], x[2]);

    /* A strided type both ways (the Go path packs, C matches). */
    MPI_Datatype every_other;
    CHECK_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    int out[8], in[8];
    for (int i = 0; i < 8; i++)
        out[i] = rank * 100 + i, in[i] = -1;
    CHECK_OK(MPI_Sendrecv(out, 1, every_other, peer, 13, in, 1, every_other, from, 13, tc, &st));
    for (int i = 0; i < 8; i++)
        CHECK(in[i] == (i % 2 == 0 ? from * 100 + i : -1), "vector word %d: %d", i, in[i]);
    CHECK_OK(MPI_Type_free(&every_other));

    /* Waitall over C receives (local and remote sources) and Go sends (remote). */
    int lpeer = rank % nt == nt - 1 ? rank - nt + 1 : rank + 1, lfrom = rank % nt == 0 ? rank + nt - 1 : rank - 1;
    int got[2] = {-1, -1}, mine = rank;
    MPI_Request q[4];
    CHECK_OK(MPI_Irecv(&got[0], 1, MPI_INT, from, 14, tc, &q[0]));
    CHECK_OK(MPI_Irecv(&got[1], 1, MPI_INT, lfrom, 15, tc, &q[1]));
    CHECK_OK(MPI_Isend(&mine, 1, MPI_INT, peer, 14, tc, &q[2]));
    CHECK_OK(MPI_Isend(&mine, 1, MPI_INT, lpeer, 15, tc, &q[3]));
    MPI_Status sts[4];
    CHECK_OK(MPI_Waitall(4, q, sts));
    CHECK(got[0] == from && got[1] == lfrom && sts[0].MPI_SOURCE == from && sts[1].MPI_SOURCE == lfrom,
          "Waitall: got %d %d", got[0], got[1]);
    free(b);
    free(r);
}

/* MPI_Irecv of a derived datatype (C receives into a packed copy, Go unpacks at
 * completion) from the next thread of this process and, with other processes, from
 * the same thread of the previous process; Testall or Waitall completes them. */
static void derived_irecv(MPI_Comm tc, int rank, int size, int nt, int nprocs)
{
    MPI_Datatype every_other;
    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    int lpeer = rank % nt == nt - 1 ? rank - nt + 1 : rank + 1, lfrom = rank % nt == 0 ? rank + nt - 1 : rank - 1;
    int rpeer = (rank + nt) % size, rfrom = (rank - nt + size) % size;
    double in[2][6], out[6];
    for (int i = 0; i < 6; i++)
        out[i] = rank + i / 10.0, in[0][i] = in[1][i] = -1;
    MPI_Request q[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    CHECK_OK(MPI_Irecv(in[0], 1, every_other, lfrom, 21, tc, &q[0]));
    if (nprocs > 1)
        CHECK_OK(MPI_Irecv(in[1], 1, every_other, rfrom, 22, tc, &q[1]));
    CHECK_OK(MPI_Send(out, 1, every_other, lpeer, 21, tc));
    if (nprocs > 1)
        CHECK_OK(MPI_Send(out, 1, every_other, rpeer, 22, tc));
    int flag = 0;
    MPI_Status sts[2];
    CHECK_OK(MPI_Testall(2, q, &flag, sts));
    if (!flag)
        CHECK_OK(MPI_Waitall(2, q, sts));
    for (int k = 0; k < (nprocs > 1 ? 2 : 1); k++) {
        int from = k == 0 ? lfrom : rfrom, n;
        CHECK_OK(MPI_Get_count(&sts[k], every_other, &n));
        CHECK(n == 1 && sts[k].MPI_SOURCE == from, "derived Irecv %d: count %d from %d", k, n, sts[k].MPI_SOURCE);
        for (int i = 0; i < 6; i++)
            CHECK(in[k][i] == (i % 2 == 0 ? from + i / 10.0 : -1), "derived Irecv %d word %d: %g", k, i,
                  in[k][i]);
    }
    /* The same through MPI_Mprobe + MPI_Mrecv (from this process) and MPI_Improbe +
     * MPI_Imrecv (from another, or from itself when alone). */
    CHECK_OK(MPI_Send(out, 1, every_other, lpeer, 23, tc));
    CHECK_OK(MPI_Send(out, 1, every_other, rpeer, 24, tc));
    for (int k = 0; k < 2; k++) {
        int from = k == 0 ? lfrom : rfrom; /* rfrom: itself in one process */
        double got[6] = {-1, -1, -1, -1, -1, -1};
        MPI_Message m;
        MPI_Status st;
        if (k == 0) {
            CHECK_OK(MPI_Mprobe(from, 23, tc, &m, &st));
            CHECK_OK(MPI_Mrecv(got, 1, every_other, &m, &st));
        } else {
            int flag = 0;
            while (!flag)
                CHECK_OK(MPI_Improbe(from, 24, tc, &flag, &m, &st));
            MPI_Request q;
            CHECK_OK(MPI_Imrecv(got, 1, every_other, &m, &q));
            CHECK(m == MPI_MESSAGE_NULL, "Imrecv left the message handle");
            CHECK_OK(MPI_Wait(&q, &st));
        }
        CHECK(st.MPI_SOURCE == from, "derived Mrecv %d: from %d", k, st.MPI_SOURCE);
        for (int i = 0; i < 6; i++)
            CHECK(got[i] == (i % 2 == 0 ? from + i / 10.0 : -1), "derived Mrecv %d word %d: %g", k, i, got[i]);
    }
    /* A persistent receive of the type, started three times, then freed. */
    MPI_Request pr;
    CHECK_OK(MPI_Recv_init(in[0], 1, every_other, lfrom, 25, tc, &pr));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 6; i++)
            in[0][i] = -1, out[i] = rank + i / 10.0 + round;
        CHECK_OK(MPI_Start(&pr));
        CHECK_OK(MPI_Send(out, 1, every_other, lpeer, 25, tc));
        MPI_Status st;
        CHECK_OK(MPI_Wait(&pr, &st));
        CHECK(pr != MPI_REQUEST_NULL && st.MPI_SOURCE == lfrom, "persistent derived receive %d: from %d", round,
              st.MPI_SOURCE);
        for (int i = 0; i < 6; i++)
            CHECK(in[0][i] == (i % 2 == 0 ? lfrom + i / 10.0 + round : -1), "persistent derived receive %d word %d: %g",
                  round, i, in[0][i]);
    }
    CHECK_OK(MPI_Request_free(&pr));
    CHECK_OK(MPI_Type_free(&every_other));
}

/* Waitsome, Testsome, Waitany and Testany over C requests (receives, sends to this
 * process) mixed with Go ones (sends to another process). */
static void mixed_completion(MPI_Comm tc, int rank, int size, int nt, int nprocs)
{
    int lpeer = rank % nt == nt - 1 ? rank - nt + 1 : rank + 1, lfrom = rank % nt == 0 ? rank + nt - 1 : rank - 1;
    int rpeer = nprocs > 1 ? (rank + nt) % size : lpeer, rfrom = nprocs > 1 ? (rank - nt + size) % size : lfrom;
    for (int form = 0; form < 4; form++) {
        int got[2] = {-1, -1}, mine[2] = {rank * 10 + form, rank * 10 + form + 5};
        MPI_Request q[4];
        CHECK_OK(MPI_Irecv(&got[0], 1, MPI_INT, lfrom, 31, tc, &q[0]));
        CHECK_OK(MPI_Irecv(&got[1], 1, MPI_INT, rfrom, 32, tc, &q[1]));
        CHECK_OK(MPI_Isend(&mine[1], 1, MPI_INT, rpeer, 32, tc, &q[2]));
        CHECK_OK(MPI_Isend(&mine[0], 1, MPI_INT, lpeer, 31, tc, &q[3]));
        int left = 4, seen[4] = {0};
        while (left > 0) {
            int idx[4], n = 0, flag = 1;
            MPI_Status sts[4];
            switch (form) {
            case 0: CHECK_OK(MPI_Waitsome(4, q, &n, idx, sts)); break;
            case 1: CHECK_OK(MPI_Testsome(4, q, &n, idx, sts)); break;
            case 2: CHECK_OK(MPI_Waitany(4, q, &idx[0], &sts[0])); n = 1; break;
            case 3:
                CHECK_OK(MPI_Testany(4, q, &idx[0], &flag, &sts[0]));
                n = flag ? 1 : 0;
                break;
            }
            CHECK(n != MPI_UNDEFINED && !(n == 1 && idx[0] == MPI_UNDEFINED), "form %d: no request left", form);
            for (int k = 0; k < n; k++) {
                int i = idx[k];
                CHECK(i >= 0 && i < 4 && !seen[i] && q[i] == MPI_REQUEST_NULL, "form %d: index %d", form, i);
                seen[i] = 1;
                if (i < 2)
                    CHECK(sts[k].MPI_SOURCE == (i == 0 ? lfrom : rfrom) && sts[k].MPI_TAG == 31 + i,
                          "form %d: request %d from %d tag %d", form, i, sts[k].MPI_SOURCE, sts[k].MPI_TAG);
                left--;
            }
        }
        CHECK(got[0] == lfrom * 10 + form && got[1] == rfrom * 10 + form + 5, "form %d: got %d %d", form, got[0],
              got[1]);
        int index, flag;
        CHECK_OK(MPI_Testany(4, q, &index, &flag, MPI_STATUS_IGNORE));
        CHECK(flag && index == MPI_UNDEFINED, "form %d: Testany of no active request: flag %d index %d", form, flag,
              index);
    }
}

/* A receive from another process must not stop its thread from taking messages of
 * its own process: rank 0 posts a receive from rank 1, then waits for rank nt (the
 * next process), which sends only after rank 1's synchronous send to rank 0 has
 * completed and rank 1 has sent to it. */
static void remote_wait_takes_local(MPI_Comm tc, int rank, int nt)
{
    int x = -1, y = -1, one = 1, two = 2;
    if (rank == 0) {
        MPI_Request q;
        CHECK_OK(MPI_Irecv(&x, 1, MPI_INT, 1, 41, tc, &q));
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, nt, 42, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&q, MPI_STATUS_IGNORE));
        CHECK(x == 1 && y == 2, "remote wait: got %d %d", x, y);
    } else if (rank == 1) {
        CHECK_OK(MPI_Ssend(&one, 1, MPI_INT, 0, 41, tc));
        CHECK_OK(MPI_Send(&two, 1, MPI_INT, nt, 43, tc));
    } else if (rank == nt) {
        CHECK_OK(MPI_Recv(&y, 1, MPI_INT, 1, 43, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Send(&y, 1, MPI_INT, 0, 42, tc));
    }
}

/* MPI_Isendrecv and MPI_Isendrecv_replace with a thread of this process and with
 * one of another, and a large message from another process received with Irecv and
 * a Test loop (the rendezvous runs while Test returns). */
static void isendrecv_and_test(MPI_Comm tc, int rank, int size, int nt, int nprocs)
{
    int lpeer = rank % nt == nt - 1 ? rank - nt + 1 : rank + 1, lfrom = rank % nt == 0 ? rank + nt - 1 : rank - 1;
    int rpeer = nprocs > 1 ? (rank + nt) % size : lpeer, rfrom = nprocs > 1 ? (rank - nt + size) % size : lfrom;
    int peers[2][2] = {{lpeer, lfrom}, {rpeer, rfrom}};
    for (int k = 0; k < 2; k++) {
        int out = rank * 3 + k, in = -1, inout[2] = {rank, -rank};
        MPI_Request q;
        MPI_Status st;
        CHECK_OK(MPI_Isendrecv(&out, 1, MPI_INT, peers[k][0], 51, &in, 1, MPI_INT, peers[k][1], 51, tc, &q));
        CHECK_OK(MPI_Wait(&q, &st));
        CHECK(in == peers[k][1] * 3 + k && st.MPI_SOURCE == peers[k][1], "Isendrecv %d: got %d from %d", k, in,
              st.MPI_SOURCE);
        CHECK_OK(MPI_Isendrecv_replace(inout, 2, MPI_INT, peers[k][0], 52, peers[k][1], 52, tc, &q));
        CHECK_OK(MPI_Wait(&q, &st));
        CHECK(inout[0] == peers[k][1] && inout[1] == -peers[k][1], "Isendrecv_replace %d: got %d %d", k, inout[0],
              inout[1]);
    }
    /* MPI_PROC_NULL as the source (the send goes to another process) and as the
     * destination. */
    int v = rank, w = -5;
    MPI_Request q1;
    MPI_Status st1;
    CHECK_OK(MPI_Isendrecv(&v, 1, MPI_INT, rpeer, 54, &w, 1, MPI_INT, MPI_PROC_NULL, 54, tc, &q1));
    CHECK_OK(MPI_Wait(&q1, &st1));
    CHECK(st1.MPI_SOURCE == MPI_PROC_NULL && w == -5, "Isendrecv from MPI_PROC_NULL: source %d, %d", st1.MPI_SOURCE, w);
    CHECK_OK(MPI_Recv(&w, 1, MPI_INT, rfrom, 54, tc, MPI_STATUS_IGNORE));
    CHECK(w == rfrom, "Isendrecv from MPI_PROC_NULL: sent %d", w);
    CHECK_OK(MPI_Isendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 55, &w, 1, MPI_INT, lfrom, 55, tc, &q1));
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, lpeer, 55, tc));
    CHECK_OK(MPI_Wait(&q1, &st1));
    CHECK(st1.MPI_SOURCE == lfrom && w == lfrom, "Isendrecv to MPI_PROC_NULL: got %d from %d", w, st1.MPI_SOURCE);

    /* MPI_Cancel: a receive nothing matches is cancelled; one that may have matched
     * delivers its message either way. */
    int flagc = 0;
    CHECK_OK(MPI_Irecv(&w, 1, MPI_INT, rfrom, 61, tc, &q1));
    CHECK_OK(MPI_Cancel(&q1));
    CHECK_OK(MPI_Wait(&q1, &st1));
    CHECK_OK(MPI_Test_cancelled(&st1, &flagc));
    CHECK(flagc, "a receive nothing matched was not cancelled");
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, rank, 62, tc));
    CHECK_OK(MPI_Irecv(&w, 1, MPI_INT, rank, 62, tc, &q1));
    CHECK_OK(MPI_Cancel(&q1));
    CHECK_OK(MPI_Wait(&q1, &st1));
    CHECK_OK(MPI_Test_cancelled(&st1, &flagc));
    if (flagc) /* the engine (MPIX_FASTPATH=0) may not have matched it yet: legal */
        CHECK_OK(MPI_Recv(&w, 1, MPI_INT, rank, 62, tc, &st1));
    CHECK(w == rank && st1.MPI_SOURCE == rank, "a message to itself: got %d from %d", w, st1.MPI_SOURCE);

    enum { BIG = 1 << 20 };
    unsigned char *b = malloc(BIG), *r = malloc(BIG);
    for (int i = 0; i < BIG; i++)
        b[i] = val(rank, 2, i);
    MPI_Request q[2];
    CHECK_OK(MPI_Irecv(r, BIG, MPI_BYTE, rfrom, 53, tc, &q[0]));
    CHECK_OK(MPI_Isend(b, BIG, MPI_BYTE, rpeer, 53, tc, &q[1]));
    for (int flag = 0; !flag;)
        CHECK_OK(MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE));
    CHECK_OK(MPI_Wait(&q[1], MPI_STATUS_IGNORE));
    for (int i = 0; i < BIG; i++)
        CHECK(r[i] == val(rfrom, 2, i), "Irecv+Test of 1 MiB: byte %d", i);
    free(b);
    free(r);
}

/* The sends C's fast paths leave to Go, to a thread of this process: MPI_Issend of a
 * derived datatype, MPI_Issend_c, persistent sends of a derived datatype (packed at
 * each start: the data changes between starts) and MPI_Bsend_init/MPI_Rsend_init/
 * MPI_Send_init_c; then the MPI_Request_get_status family over C requests, alone and
 * mixed with Go ones, which reports without completing (a derived receive's data is
 * in place once it says complete). */
static void go_sends_and_status(MPI_Comm tc, int rank, int size, int nt, int nprocs)
{
    int lpeer = rank % nt == nt - 1 ? rank - nt + 1 : rank + 1, lfrom = rank % nt == 0 ? rank + nt - 1 : rank - 1;
    int rpeer = nprocs > 1 ? (rank + nt) % size : lpeer, rfrom = nprocs > 1 ? (rank - nt + size) % size : lfrom;
    MPI_Datatype every_other;
    CHECK_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
    CHECK_OK(MPI_Type_commit(&every_other));
    int out[8], in[8];
    MPI_Request q[2];
    MPI_Status st;
    for (int i = 0; i < 8; i++)
        out[i] = rank * 100 + i, in[i] = -1;
    CHECK_OK(MPI_Irecv(in, 1, every_other, lfrom, 71, tc, &q[0]));
    CHECK_OK(MPI_Issend(out, 1, every_other, lpeer, 71, tc, &q[1]));
    CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    for (int i = 0; i < 8; i++)
        CHECK(in[i] == (i % 2 == 0 ? lfrom * 100 + i : -1), "derived Issend word %d: %d", i, in[i]);
    int one = rank, got = -1;
    CHECK_OK(MPI_Irecv(&got, 1, MPI_INT, lfrom, 72, tc, &q[0]));
    CHECK_OK(MPI_Issend_c(&one, 1, MPI_INT, lpeer, 72, tc, &q[1]));
    CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
    CHECK(got == lfrom, "Issend_c: got %d", got);

    /* Persistent: a derived type standard and synchronous, and the other modes. */
    for (int form = 0; form < 5; form++) {
        MPI_Request ps;
        switch (form) {
        case 0: CHECK_OK(MPI_Send_init(out, 1, every_other, lpeer, 73, tc, &ps)); break;
        case 1: CHECK_OK(MPI_Ssend_init(out, 1, every_other, lpeer, 73, tc, &ps)); break;
        case 2: CHECK_OK(MPI_Bsend_init(out, 8, MPI_INT, lpeer, 73, tc, &ps)); break;
        case 3: CHECK_OK(MPI_Rsend_init(out, 8, MPI_INT, lpeer, 73, tc, &ps)); break;
        default: CHECK_OK(MPI_Send_init_c(out, 8, MPI_INT, lpeer, 73, tc, &ps)); break;
        }
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 8; i++)
                out[i] = rank * 100 + i + round * 10 + form * 1000, in[i] = -1;
            if (form < 2)
                CHECK_OK(MPI_Irecv(in, 1, every_other, lfrom, 73, tc, &q[0]));
            else
                CHECK_OK(MPI_Irecv(in, 8, MPI_INT, lfrom, 73, tc, &q[0]));
            CHECK_OK(MPI_Barrier(tc)); /* every receive is posted (MPI_Rsend_init) */
            q[1] = ps;
            CHECK_OK(MPI_Start(&q[1]));
            CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
            CHECK(q[1] == ps, "persistent send form %d: its handle went", form);
            for (int i = 0; i < 8; i++) {
                int want = lfrom * 100 + i + round * 10 + form * 1000;
                CHECK(in[i] == (form >= 2 || i % 2 == 0 ? want : -1), "persistent send form %d round %d word %d: %d",
                      form, round, i, in[i]);
            }
        }
        CHECK_OK(MPI_Request_free(&ps));
    }

    /* A buffered send completes without its receiver, who takes a later message
     * first: a large MPI_Ibsend, and a large persistent buffered send of a derived
     * datatype (packed, then copied at its start). */
    enum { NB = 12000 }; /* ints: past the C queues' 16 KiB eager limit */
    int *bo = malloc(2 * NB * sizeof(int)), *bi = malloc(2 * NB * sizeof(int));
    MPI_Datatype big;
    CHECK_OK(MPI_Type_vector(NB, 1, 2, MPI_INT, &big));
    CHECK_OK(MPI_Type_commit(&big));
    for (int form = 0; form < 2; form++) {
        for (int i = 0; i < 2 * NB; i++)
            bo[i] = rank * 3 + i + form, bi[i] = -1;
        MPI_Request b;
        if (form == 0)
            CHECK_OK(MPI_Ibsend(bo, NB, MPI_INT, lpeer, 76, tc, &b));
        else {
            CHECK_OK(MPI_Bsend_init(bo, 1, big, lpeer, 76, tc, &b));
            CHECK_OK(MPI_Start(&b));
        }
        for (int flag = 0; !flag;)
            CHECK_OK(MPI_Test(&b, &flag, MPI_STATUS_IGNORE));
        if (form == 1)
            CHECK_OK(MPI_Request_free(&b));
        for (int i = 0; i < 2 * NB; i++)
            bo[i] = -2; /* the buffer is the sender's again */
        int token = rank, got = -1;
        CHECK_OK(MPI_Send(&token, 1, MPI_INT, lpeer, 77, tc));
        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, lfrom, 77, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Recv(bi, form == 0 ? NB : 1, form == 0 ? MPI_INT : big, lfrom, 76, tc, MPI_STATUS_IGNORE));
        for (int i = 0; i < (form == 0 ? NB : 2 * NB - 1); i++)
            CHECK(bi[i] == (form == 0 || i % 2 == 0 ? lfrom * 3 + i + form : -1), "buffered send form %d word %d: %d",
                  form, i, bi[i]);
    }
    CHECK_OK(MPI_Type_free(&big));
    free(bo);
    free(bi);

    /* MPI_Request_free of a synchronous send its receiver has not taken returns at
     * once (the receiver takes a later message first); the send completes later. */
    for (int form = 0; form < 2; form++) {
        int v[8], w[8], token = rank, got = -1;
        for (int i = 0; i < 8; i++)
            v[i] = rank + i + form, w[i] = -1;
        MPI_Request f;
        if (form == 0)
            CHECK_OK(MPI_Issend(v, 1, every_other, lpeer, 78, tc, &f));
        else {
            CHECK_OK(MPI_Ssend_init(v, 1, every_other, lpeer, 78, tc, &f));
            CHECK_OK(MPI_Start(&f));
        }
        CHECK_OK(MPI_Request_free(&f));
        CHECK(f == MPI_REQUEST_NULL, "Request_free left the handle");
        CHECK_OK(MPI_Send(&token, 1, MPI_INT, lpeer, 79, tc));
        CHECK_OK(MPI_Recv(&got, 1, MPI_INT, lfrom, 79, tc, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Recv(w, 1, every_other, lfrom, 78, tc, MPI_STATUS_IGNORE));
        for (int i = 0; i < 8; i++)
            CHECK(w[i] == (i % 2 == 0 ? lfrom + i + form : -1), "freed Issend form %d word %d: %d", form, i, w[i]);
    }

    /* MPI_Request_get_status on a C receive of a derived type: the data is there once
     * it says complete, and the request stays for MPI_Wait. */
    for (int i = 0; i < 8; i++)
        out[i] = rank * 100 + i, in[i] = -1;
    CHECK_OK(MPI_Irecv(in, 1, every_other, lfrom, 74, tc, &q[0]));
    int flag = 0;
    CHECK_OK(MPI_Send(out, 1, every_other, lpeer, 74, tc));
    while (!flag)
        CHECK_OK(MPI_Request_get_status(q[0], &flag, MPI_STATUS_IGNORE));
    for (int i = 0; i < 8; i++)
        CHECK(in[i] == (i % 2 == 0 ? lfrom * 100 + i : -1), "get_status: word %d: %d", i, in[i]);
    CHECK_OK(MPI_Request_get_status(q[0], &flag, &st));
    CHECK(flag && q[0] != MPI_REQUEST_NULL && st.MPI_SOURCE == lfrom && st.MPI_TAG == 74, "get_status: from %d tag %d",
          st.MPI_SOURCE, st.MPI_TAG);
    in[0] = -7; /* a Wait after it must not unpack again */
    CHECK_OK(MPI_Wait(&q[0], &st));
    CHECK(q[0] == MPI_REQUEST_NULL && st.MPI_SOURCE == lfrom && in[0] == -7, "Wait after get_status: from %d, %d",
          st.MPI_SOURCE, in[0]);

    /* The any/all/some forms over a C receive and a send to another process (a Go
     * request there). */
    for (int form = 0; form < 4; form++) {
        int x[8], mine[8];
        for (int i = 0; i < 8; i++)
            x[i] = -1, mine[i] = rank * 7 + form + i;
        MPI_Status sts[2];
        CHECK_OK(MPI_Irecv(x, 1, every_other, rfrom, 75, tc, &q[0]));
        CHECK_OK(MPI_Isend(mine, 1, every_other, rpeer, 75, tc, &q[1]));
        int seen[2] = {0, 0};
        while (!seen[0] || !seen[1]) {
            int idx[2], n = 0, f = 0;
            switch (form) {
            case 0:
                CHECK_OK(MPI_Request_get_status_all(2, q, &f, sts));
                if (f) {
                    CHECK(q[0] != MPI_REQUEST_NULL && q[1] != MPI_REQUEST_NULL, "get_status_all completed a request");
                    seen[0] = seen[1] = 1, idx[0] = 0, n = 1;
                }
                break;
            case 1:
                CHECK_OK(MPI_Request_get_status_any(2, q, &idx[0], &f, &sts[0]));
                CHECK(!f || idx[0] != MPI_UNDEFINED, "get_status_any: no active request");
                n = f ? 1 : 0;
                break;
            default: /* form 3: statuses ignored */
                CHECK_OK(MPI_Request_get_status_some(2, q, &n, idx, form == 3 ? MPI_STATUSES_IGNORE : sts));
                CHECK(n != MPI_UNDEFINED, "get_status_some: no active request");
                break;
            }
            for (int k = 0; k < n; k++) {
                int i = idx[k], done;
                CHECK(q[i] != MPI_REQUEST_NULL, "get_status form %d: request %d was completed", form, i);
                if (i == 0) {
                    CHECK(x[0] == rfrom * 7 + form && x[1] == -1 && x[6] == rfrom * 7 + form + 6,
                          "get_status form %d: data not in place: %d %d %d", form, x[0], x[1], x[6]);
                    CHECK(form == 3 || (sts[k].MPI_SOURCE == rfrom && sts[k].MPI_TAG == 75),
                          "get_status form %d: from %d tag %d", form, sts[k].MPI_SOURCE, sts[k].MPI_TAG);
                }
                if (form > 0) { /* reported again until completed */
                    seen[i] = 1;
                    CHECK_OK(MPI_Test(&q[i], &done, MPI_STATUS_IGNORE));
                    CHECK(done && q[i] == MPI_REQUEST_NULL, "get_status form %d: request %d not complete", form, i);
                }
            }
        }
        CHECK_OK(MPI_Waitall(2, q, MPI_STATUSES_IGNORE));
        CHECK(x[2] == rfrom * 7 + form + 2 && x[3] == -1, "get_status form %d: got %d %d", form, x[2], x[3]);
    }
    CHECK_OK(MPI_Type_free(&every_other));
}

int main(int argc, char **argv)
{
    int provided, wrank, wsize;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    mpix_test_path_begin();
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    int nt = argc > 1 ? atoi(argv[1]) : 3;
    int failed = 0;
    MPI_Comm tc;
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, nt, &tc));
    /* For the buffered sends (a thread of this process needs none of it). */
    int bsend_size = 8 * (48000 + MPI_BSEND_OVERHEAD) * nt;
    CHECK_OK(MPI_Buffer_attach(malloc(bsend_size), bsend_size));
    for (int round = 0; round < 3; round++) {
        if (round == 1 && wrank == wsize - 1) {
            /* Rank 0's messages reach this process's engine before its region. */
            double t0 = MPI_Wtime();
            int flag;
            while (MPI_Wtime() - t0 < 0.1)
                MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        }
#pragma omp parallel num_threads(nt)
        {
            int rank, size;
            CHECK_OK(MPIX_Threadcomm_start(tc));
            MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN);
            CHECK_OK(MPI_Comm_rank(tc, &rank));
            CHECK_OK(MPI_Comm_size(tc, &size));
            if (round == 1)
                early_messages(tc, rank, size, (wsize - 1) * nt);
            for (int root = round; root < size; root += 3) {
                everyone_to_one(tc, rank, size, root);
                CHECK_OK(MPI_Barrier(tc)); /* the wildcards meet no later message */
            }
            if (wsize > 1)
                across(tc, rank, size, nt);
            derived_irecv(tc, rank, size, nt, wsize);
            mixed_completion(tc, rank, size, nt, wsize);
            isendrecv_and_test(tc, rank, size, nt, wsize);
            go_sends_and_status(tc, rank, size, nt, wsize);
            if (wsize > 1 && nt > 1)
                remote_wait_takes_local(tc, rank, nt);
            CHECK_OK(MPIX_Threadcomm_finish(tc));
        }
    }
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    void *bbuf;
    int bsize;
    CHECK_OK(MPI_Buffer_detach(&bbuf, &bsize));
    free(bbuf);
    if (wrank == 0 && !failed)
        printf("tc_span ok\n");
    mpix_test_path_end();
    MPI_Finalize();
    return 0;
}

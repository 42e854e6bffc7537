/* Handle and status conversion between C and Fortran (MPI-4.1 §19.3.4-19.3.5):
 *   - every MPI_X_c2f/MPI_X_f2c round-trips its kind's handles, predefined, null and
 *     made by the program; they work before MPI_Init and after MPI_Finalize;
 *   - MPI_File (a pointer): MPI_FILE_NULL is Fortran 0 both ways, and a Fortran
 *     handle no open file has gives an invalid C handle (this program opens no file;
 *     ctests/io/io_basic.c converts open ones);
 *   - a request of each kind mpix makes (Go, threadcomm, lite, the pre-completed send)
 *     still completes with MPI_Wait after c2f and f2c: nonblocking receives and sends,
 *     persistent requests started twice, a generalized request, and a matched message
 *     received with MPI_Mrecv;
 *   - the six status conversions keep all five words: source, tag, error, a count
 *     above 2^31 and the cancelled bit, read back with MPI_Get_count(_c),
 *     MPI_Get_elements(_x) and MPI_Test_cancelled, in both chains c->f->f08->c and
 *     c->f08->f->c;
 *   - NULL and the STATUS(ES)_IGNORE values of each form are MPI_ERR_ARG, raised on
 *     MPI_COMM_WORLD's handler, and leave the output alone.
 * Usage: convert [KINDS]  (run with 2 processes; KINDS, a comma list of go, threadcomm,
 * lite and completed, names the request kinds this run must have converted). */
#include <pthread.h>
#include <stdint.h>
#include "mpix_test.h"
#include <mpix.h>

/* Request kinds by their handle's top bits (docs/architecture.md, "Handles"). */
enum { KIND_GO, KIND_THREADCOMM, KIND_LITE, KIND_COMPLETED, KIND_OTHER, NKINDS };
static const char *kind_names[NKINDS] = {"go", "threadcomm", "lite", "completed", "other"};
static int seen[NKINDS];
static pthread_mutex_t seen_lock = PTHREAD_MUTEX_INITIALIZER;

static int kind_of(MPI_Request r)
{
    uint32_t h = (uint32_t)r;
    if ((h & 0xfc000000u) == 0xac000000u)
        return KIND_GO;
    if ((h & 0xfc000000u) == 0xec000000u)
        return KIND_THREADCOMM;
    if ((h & 0xfe000000u) == 0x6e000000u)
        return KIND_LITE;
    if (h == 0x6c000001u)
        return KIND_COMPLETED;
    return KIND_OTHER;
}

/* convert passes a request through Fortran and back, as a Fortran binding does, and
 * records its kind. */
static MPI_Request convert(MPI_Request r)
{
    MPI_Fint f = MPI_Request_c2f(r);
    CHECK(f == (MPI_Fint)r, "MPI_Request_c2f(%#x) = %#x: int handles are their own Fortran value", (unsigned)r,
          (unsigned)f);
    MPI_Request back = MPI_Request_f2c(f);
    CHECK(back == r, "MPI_Request_f2c(MPI_Request_c2f(%#x)) = %#x", (unsigned)r, (unsigned)back);
    pthread_mutex_lock(&seen_lock);
    seen[kind_of(r)]++;
    pthread_mutex_unlock(&seen_lock);
    return back;
}

/* The handle conversions that need no object made by the program: allowed anywhere. */
static void predefined_handles(void)
{
#define ROUND(Kind, T, h)                                                                 \
    do {                                                                                  \
        T h_ = (h);                                                                       \
        CHECK(MPI_##Kind##_c2f(h_) == (MPI_Fint)h_, "MPI_" #Kind "_c2f(" #h ")");         \
        CHECK(MPI_##Kind##_f2c(MPI_##Kind##_c2f(h_)) == h_, "MPI_" #Kind "_f2c(c2f(" #h "))"); \
    } while (0)
    ROUND(Comm, MPI_Comm, MPI_COMM_WORLD);
    ROUND(Comm, MPI_Comm, MPI_COMM_SELF);
    ROUND(Comm, MPI_Comm, MPI_COMM_NULL);
    ROUND(Group, MPI_Group, MPI_GROUP_EMPTY);
    ROUND(Group, MPI_Group, MPI_GROUP_NULL);
    ROUND(Type, MPI_Datatype, MPI_DOUBLE);
    ROUND(Type, MPI_Datatype, MPI_DATATYPE_NULL);
    ROUND(Request, MPI_Request, MPI_REQUEST_NULL);
    ROUND(Op, MPI_Op, MPI_SUM);
    ROUND(Op, MPI_Op, MPI_OP_NULL);
    ROUND(Win, MPI_Win, MPI_WIN_NULL);
    ROUND(Info, MPI_Info, MPI_INFO_ENV);
    ROUND(Info, MPI_Info, MPI_INFO_NULL);
    ROUND(Errhandler, MPI_Errhandler, MPI_ERRORS_RETURN);
    ROUND(Errhandler, MPI_Errhandler, MPI_ERRHANDLER_NULL);
    ROUND(Message, MPI_Message, MPI_MESSAGE_NULL);
    ROUND(Message, MPI_Message, MPI_MESSAGE_NO_PROC);
    ROUND(Session, MPI_Session, MPI_SESSION_NULL);
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0, "MPI_File_c2f(MPI_FILE_NULL) = %d", MPI_File_c2f(MPI_FILE_NULL));
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL, "MPI_File_f2c(0)");
    /* No file is open: Fortran handle 1 names none, so it converts to an invalid C
     * handle, which is not MPI_FILE_NULL and converts back to an invalid (negative)
     * Fortran handle. */
    MPI_File bad = MPI_File_f2c(1);
    CHECK(bad != MPI_FILE_NULL, "MPI_File_f2c of no open file gave MPI_FILE_NULL");
    CHECK(MPI_File_c2f(bad) < 0, "MPI_File_c2f(invalid) = %d", MPI_File_c2f(bad));
#undef ROUND
}

/* A status with every word set: a count above 2^31, cancelled, source, tag, error. */
static const MPI_Count big = ((MPI_Count)1 << 31) + 5;

static void check_big(const MPI_Status *st, const char *how)
{
    MPI_Count c = -1;
    int n = -1, flag = -1;
    CHECK_OK(MPI_Get_elements_x(st, MPI_BYTE, &c));
    CHECK(c == big, "%s: MPI_Get_elements_x = %lld", how, (long long)c);
    CHECK_OK(MPI_Get_count_c(st, MPI_BYTE, &c));
    CHECK(c == big, "%s: MPI_Get_count_c = %lld", how, (long long)c);
    CHECK_OK(MPI_Get_count(st, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED, "%s: MPI_Get_count = %d, want MPI_UNDEFINED", how, n);
    CHECK_OK(MPI_Get_elements(st, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED, "%s: MPI_Get_elements = %d, want MPI_UNDEFINED", how, n);
    CHECK_OK(MPI_Test_cancelled(st, &flag));
    CHECK(flag == 1, "%s: MPI_Test_cancelled = %d", how, flag);
    CHECK(st->MPI_SOURCE == 3 && st->MPI_TAG == 44 && st->MPI_ERROR == MPI_ERR_TRUNCATE, "%s: source %d tag %d error %d",
          how, st->MPI_SOURCE, st->MPI_TAG, st->MPI_ERROR);
}

/* through_all takes st through every conversion, c->f->f08->c and c->f08->f->c, checks
 * that each form holds the same five words, and returns the two results. */
static void through_all(const MPI_Status *st, MPI_Status out[2])
{
    MPI_Fint f[MPI_F_STATUS_SIZE], f2[MPI_F_STATUS_SIZE];
    MPI_F08_status f08, f08b;
    CHECK_OK(MPI_Status_c2f(st, f));
    CHECK(memcmp(f, st, sizeof f) == 0, "MPI_Status_c2f changed a word");
    CHECK(f[MPI_F_SOURCE] == st->MPI_SOURCE && f[MPI_F_TAG] == st->MPI_TAG && f[MPI_F_ERROR] == st->MPI_ERROR,
          "MPI_Status_c2f: source/tag/error not at MPI_F_SOURCE/TAG/ERROR");
    CHECK_OK(MPI_Status_f2f08(f, &f08));
    CHECK(f08.MPI_SOURCE == st->MPI_SOURCE && f08.MPI_TAG == st->MPI_TAG && f08.MPI_ERROR == st->MPI_ERROR &&
              f08.count_lo == st->count_lo && f08.count_hi_and_cancelled == st->count_hi_and_cancelled,
          "MPI_Status_f2f08");
    CHECK_OK(MPI_Status_f082c(&f08, &out[0]));
    CHECK(memcmp(&out[0], st, sizeof *st) == 0, "c->f->f08->c changed the status");

    CHECK_OK(MPI_Status_c2f08(st, &f08b));
    CHECK(memcmp(&f08b, st, sizeof f08b) == 0, "MPI_Status_c2f08 changed a word");
    CHECK_OK(MPI_Status_f082f(&f08b, f2));
    CHECK(memcmp(f2, f, sizeof f) == 0, "MPI_Status_f082f differs from MPI_Status_c2f");
    CHECK_OK(MPI_Status_f2c(f2, &out[1]));
    CHECK(memcmp(&out[1], st, sizeof *st) == 0, "c->f08->f->c changed the status");
}

static int handler_calls, handler_code;
static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

/* The erroneous arguments of each conversion: NULL either side, and an IGNORE value of
 * the form to be converted (or to receive) as MPI_ERR_ARG, the output unchanged. */
static void status_errors(void)
{
    MPI_Status c;
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_F08_status f08;
    memset(&c, 0x5a, sizeof c);
    memset(f, 0x5a, sizeof f);
    memset(&f08, 0x5a, sizeof f08);
    MPI_Status c0 = c;

    CHECK_CLASS(MPI_Status_c2f(NULL, f), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_c2f(MPI_STATUSES_IGNORE, f), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_c2f(&c, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_c2f(&c, MPI_F_STATUS_IGNORE), MPI_ERR_ARG);

    CHECK_CLASS(MPI_Status_f2c(NULL, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2c(f, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2c(f, MPI_STATUS_IGNORE), MPI_ERR_ARG);

    CHECK_CLASS(MPI_Status_c2f08(NULL, &f08), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_c2f08(MPI_STATUS_IGNORE, &f08), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_c2f08(MPI_STATUSES_IGNORE, &f08), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_c2f08(&c, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_c2f08(&c, MPI_F08_STATUS_IGNORE), MPI_ERR_ARG);

    CHECK_CLASS(MPI_Status_f082c(NULL, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f082c(MPI_F08_STATUS_IGNORE, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f082c(MPI_F08_STATUSES_IGNORE, &c), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f082c(&f08, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f082c(&f08, MPI_STATUSES_IGNORE), MPI_ERR_ARG);

    CHECK_CLASS(MPI_Status_f2f08(NULL, &f08), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2f08(MPI_F_STATUS_IGNORE, &f08), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2f08(MPI_F_STATUSES_IGNORE, &f08), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2f08(f, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f2f08(f, MPI_F08_STATUSES_IGNORE), MPI_ERR_ARG);

    CHECK_CLASS(MPI_Status_f082f(NULL, f), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f082f(MPI_F08_STATUS_IGNORE, f), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f082f(MPI_F08_STATUSES_IGNORE, f), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f082f(&f08, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_f082f(&f08, MPI_F_STATUSES_IGNORE), MPI_ERR_ARG);

    CHECK(memcmp(&c, &c0, sizeof c) == 0 && memcmp(f, &c0, sizeof f) == 0 && memcmp(&f08, &c0, sizeof f08) == 0,
          "a failed conversion wrote its output");

    /* The error goes to MPI_COMM_WORLD's handler, as for every call without a handle. */
    MPI_Errhandler eh;
    CHECK_OK(MPI_Comm_create_errhandler(count_errors, &eh));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    int rc = MPI_Status_f2c(MPI_F_STATUS_IGNORE, &c);
    CHECK(handler_calls == 1 && handler_code == rc && mpix_test_class(rc) == MPI_ERR_ARG,
          "MPI_COMM_WORLD's handler called %d times with %d (rc %d)", handler_calls, handler_code, rc);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Errhandler_free(&eh));
}

static void statuses(int rank, int peer)
{
    MPI_Status st, out[2];
    /* A received message's status. */
    int sbuf[3] = {rank, 7, 9}, rbuf[3];
    CHECK_OK(MPI_Sendrecv(sbuf, 3, MPI_INT, peer, 21, rbuf, 3, MPI_INT, peer, 21, MPI_COMM_WORLD, &st));
    through_all(&st, out);
    for (int i = 0; i < 2; i++) {
        int n = -1, flag = -1;
        CHECK_OK(MPI_Get_count(&out[i], MPI_INT, &n));
        CHECK(n == 3, "received: MPI_Get_count = %d", n);
        CHECK_OK(MPI_Test_cancelled(&out[i], &flag));
        CHECK(flag == 0, "received: cancelled");
        CHECK(out[i].MPI_SOURCE == peer && out[i].MPI_TAG == 21, "received: source %d tag %d", out[i].MPI_SOURCE,
              out[i].MPI_TAG);
    }
    /* Every word set, the count above 2^31. */
    memset(&st, 0, sizeof st);
    CHECK_OK(MPI_Status_set_elements_x(&st, MPI_BYTE, big));
    CHECK_OK(MPI_Status_set_cancelled(&st, 1));
    CHECK_OK(MPI_Status_set_source(&st, 3));
    CHECK_OK(MPI_Status_set_tag(&st, 44));
    CHECK_OK(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    check_big(&st, "original");
    through_all(&st, out);
    check_big(&out[0], "c->f->f08->c");
    check_big(&out[1], "c->f08->f->c");
    status_errors();
}

static void max_fn(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        if (((int *)in)[i] > ((int *)inout)[i])
            ((int *)inout)[i] = ((int *)in)[i];
}

/* Objects made by the program. */
static void made_handles(void)
{
    MPI_Comm dup;
    MPI_Group g;
    MPI_Datatype t;
    MPI_Op op;
    MPI_Info info;
    MPI_Errhandler eh;
    MPI_Win win;
    MPI_Session s;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup, "comm");
    CHECK_OK(MPI_Comm_group(dup, &g));
    CHECK(MPI_Group_c2f(g) == (MPI_Fint)g && MPI_Group_f2c(MPI_Group_c2f(g)) == g, "group");
    int size = -1;
    CHECK_OK(MPI_Group_size(MPI_Group_f2c(MPI_Group_c2f(g)), &size));
    CHECK(size == 2, "converted group's size %d", size);
    CHECK_OK(MPI_Type_contiguous(3, MPI_INT, &t));
    CHECK(MPI_Type_f2c(MPI_Type_c2f(t)) == t, "datatype");
    CHECK_OK(MPI_Op_create(max_fn, 1, &op));
    CHECK(MPI_Op_f2c(MPI_Op_c2f(op)) == op, "op");
    CHECK_OK(MPI_Info_create(&info));
    CHECK(MPI_Info_f2c(MPI_Info_c2f(info)) == info, "info");
    CHECK_OK(MPI_Comm_create_errhandler(count_errors, &eh));
    CHECK(MPI_Errhandler_f2c(MPI_Errhandler_c2f(eh)) == eh, "errhandler");
    CHECK_OK(MPI_Win_create(NULL, 0, 1, MPI_INFO_NULL, dup, &win));
    CHECK(MPI_Win_f2c(MPI_Win_c2f(win)) == win, "win");
    CHECK_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    CHECK(MPI_Session_c2f(s) == (MPI_Fint)s && MPI_Session_f2c(MPI_Session_c2f(s)) == s, "session");
    CHECK_OK(MPI_Session_finalize(&s));
    CHECK_OK(MPI_Win_free(&win));
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Op_free(&op));
    CHECK_OK(MPI_Type_free(&t));
    CHECK_OK(MPI_Group_free(&g));
    CHECK_OK(MPI_Comm_free(&dup));
}

static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra) { (void)extra; return MPI_SUCCESS; }
static int cancel_fn(void *extra, int complete) { (void)extra, (void)complete; return MPI_SUCCESS; }

/* wait_recv completes a receive of n ints want, want+1, ... from src; MPI_Wait frees
 * the request unless it is persistent. */
#define wait_recv(...) wait_recv_(__LINE__, __VA_ARGS__)
static void wait_recv_(int line, MPI_Request *r, int persistent, const int *buf, int n, int want, int src)
{
    MPI_Status st;
    int got = -1;
    CHECK_OK(MPI_Wait(r, &st));
    CHECK((*r == MPI_REQUEST_NULL) != persistent, "MPI_Wait left %#x", (unsigned)*r);
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &got));
    CHECK(got == n && st.MPI_SOURCE == src, "line %d: count %d source %d", line, got, st.MPI_SOURCE);
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == want + i, "line %d: word %d: %d, want %d", line, i, buf[i], want + i);
}

/* Requests of every kind this path makes, each converted before it completes. */
static void requests(int rank, int peer)
{
    enum { BIG = 1 << 18 }; /* 1 MiB of ints: past any eager limit */
    int *sbig = malloc(sizeof(int) * BIG), *rbig = malloc(sizeof(int) * BIG);
    int s[4], r[4];
    MPI_Request rr, sr;
    for (int i = 0; i < BIG; i++)
        sbig[i] = rank * 1000 + i;

    /* A receive from this process and a small send to it: on shm's fast path a lite
     * request and the pre-completed send. First, while no message from the peer can
     * be waiting unmatched (which sends receives to Go). */
    for (int i = 0; i < 4; i++)
        s[i] = rank * 100 + i;
    CHECK_OK(MPI_Irecv(r, 4, MPI_INT, rank, 2, MPI_COMM_WORLD, &rr));
    CHECK_OK(MPI_Isend(s, 4, MPI_INT, rank, 2, MPI_COMM_WORLD, &sr));
    rr = convert(rr);
    sr = convert(sr);
    CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    CHECK(sr == MPI_REQUEST_NULL, "send request not freed");
    wait_recv(&rr, 0, r, 4, rank * 100, rank);
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));

    /* A nonblocking receive from the peer. */
    CHECK_OK(MPI_Irecv(r, 4, MPI_INT, peer, 1, MPI_COMM_WORLD, &rr));
    rr = convert(rr);
    CHECK_OK(MPI_Send(s, 4, MPI_INT, peer, 1, MPI_COMM_WORLD));
    wait_recv(&rr, 0, r, 4, peer * 100, peer);

    /* A large exchange (Go requests). */
    CHECK_OK(MPI_Irecv(rbig, BIG, MPI_INT, peer, 3, MPI_COMM_WORLD, &rr));
    CHECK_OK(MPI_Isend(sbig, BIG, MPI_INT, peer, 3, MPI_COMM_WORLD, &sr));
    rr = convert(rr);
    sr = convert(sr);
    CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    wait_recv(&rr, 0, rbig, BIG, peer * 1000, peer);

    /* Persistent requests, converted once and started twice. */
    MPI_Request pr, ps;
    CHECK_OK(MPI_Recv_init(r, 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &pr));
    CHECK_OK(MPI_Send_init(s, 4, MPI_INT, peer, 4, MPI_COMM_WORLD, &ps));
    pr = convert(pr);
    ps = convert(ps);
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 4; i++)
            s[i] = rank * 100 + round * 10 + i;
        memset(r, 0, sizeof r);
        CHECK_OK(MPI_Start(&pr));
        CHECK_OK(MPI_Start(&ps));
        CHECK_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
        CHECK(ps != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
        wait_recv(&pr, 1, r, 4, peer * 100 + round * 10, peer);
    }
    CHECK_OK(MPI_Request_free(&pr));
    CHECK_OK(MPI_Request_free(&ps));

    /* A generalized request. */
    MPI_Request gr;
    CHECK_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &gr));
    gr = convert(gr);
    CHECK_OK(MPI_Grequest_complete(gr));
    CHECK_OK(MPI_Wait(&gr, MPI_STATUS_IGNORE));
    CHECK(gr == MPI_REQUEST_NULL, "generalized request not freed");

    /* A matched message. */
    MPI_Message m;
    MPI_Status st;
    s[0] = rank * 100 + 55;
    CHECK_OK(MPI_Isend(s, 4, MPI_INT, peer, 5, MPI_COMM_WORLD, &sr));
    CHECK_OK(MPI_Mprobe(peer, 5, MPI_COMM_WORLD, &m, &st));
    CHECK(MPI_Message_c2f(m) == (MPI_Fint)m, "MPI_Message_c2f");
    m = MPI_Message_f2c(MPI_Message_c2f(m));
    CHECK_OK(MPI_Mrecv(r, 4, MPI_INT, &m, &st));
    CHECK(m == MPI_MESSAGE_NULL && r[0] == peer * 100 + 55, "MPI_Mrecv on a converted message");
    sr = convert(sr);
    CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    free(sbig);
    free(rbig);
}

/* Threadcomm requests: two threads of one process on a threadcomm over MPI_COMM_SELF
 * exchange with a nonblocking receive and persistent requests. */
static MPI_Comm tc;
static void *tc_thread(void *arg)
{
    int me, other, s[4], r[4];
    MPI_Request rr, sr;
    (void)arg;
    CHECK_OK(MPIX_Threadcomm_start(tc));
    CHECK_OK(MPI_Comm_rank(tc, &me)); /* the order of the starts, not of the creates */
    other = 1 - me;
    for (int i = 0; i < 4; i++)
        s[i] = me * 100 + i;
    CHECK_OK(MPI_Irecv(r, 4, MPI_INT, other, 1, tc, &rr));
    rr = convert(rr);
    CHECK_OK(MPI_Isend(s, 4, MPI_INT, other, 1, tc, &sr));
    sr = convert(sr);
    CHECK_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
    wait_recv(&rr, 0, r, 4, other * 100, other);

    MPI_Request pr, ps;
    CHECK_OK(MPI_Recv_init(r, 4, MPI_INT, other, 2, tc, &pr));
    CHECK_OK(MPI_Send_init(s, 4, MPI_INT, other, 2, tc, &ps));
    pr = convert(pr);
    ps = convert(ps);
    for (int round = 0; round < 2; round++) {
        CHECK_OK(MPI_Start(&pr));
        CHECK_OK(MPI_Start(&ps));
        CHECK_OK(MPI_Wait(&ps, MPI_STATUS_IGNORE));
        wait_recv(&pr, 1, r, 4, other * 100, other);
    }
    CHECK_OK(MPI_Request_free(&pr));
    CHECK_OK(MPI_Request_free(&ps));
    CHECK_OK(MPIX_Threadcomm_finish(tc));
    return NULL;
}

static void threadcomm_requests(void)
{
    pthread_t th[2];
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_SELF, 2, &tc));
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, tc_thread, NULL) == 0, "pthread_create");
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    CHECK_OK(MPIX_Threadcomm_free(&tc));
}

int main(int argc, char **argv)
{
    int rank, size, flag = -1;
    MPI_Status pre, pre_out[2];

    /* Before MPI_Init: the conversions work (MPI-4.1 allows them anywhere). */
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(flag == 0, "initialized before MPI_Init");
    predefined_handles();
    pre.count_lo = 0x12345678;
    pre.count_hi_and_cancelled = 0x3; /* a count above 2^31, cancelled */
    pre.MPI_SOURCE = 3;
    pre.MPI_TAG = 44;
    pre.MPI_ERROR = MPI_ERR_TRUNCATE;
    through_all(&pre, pre_out);

    int provided;
    CHECK_OK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "run with 2 processes, not %d", size);
    int peer = 1 - rank;

    /* What was converted before MPI_Init reads back as the original. */
    for (int i = 0; i < 2; i++) {
        MPI_Count a = -1, b = -2;
        int fa = -1, fb = -2;
        CHECK_OK(MPI_Get_elements_x(&pre, MPI_BYTE, &a));
        CHECK_OK(MPI_Get_elements_x(&pre_out[i], MPI_BYTE, &b));
        CHECK_OK(MPI_Test_cancelled(&pre, &fa));
        CHECK_OK(MPI_Test_cancelled(&pre_out[i], &fb));
        CHECK(a == b && a > INT32_MAX && fa == fb && fa == 1, "converted before MPI_Init: %lld/%d, want %lld/%d",
              (long long)b, fb, (long long)a, fa);
    }

    predefined_handles();
    made_handles();
    statuses(rank, peer);
    requests(rank, peer);
    threadcomm_requests();

    /* KINDS: the request kinds this run must have converted. */
    if (argc > 1) {
        char want[256];
        snprintf(want, sizeof want, "%s", argv[1]);
        for (char *k = strtok(want, ","); k != NULL; k = strtok(NULL, ",")) {
            int i = 0;
            while (i < NKINDS && strcmp(kind_names[i], k) != 0)
                i++;
            CHECK(i < NKINDS, "unknown kind %s", k);
            CHECK(seen[i] > 0, "no %s request was converted", k);
        }
    }
    if (rank == 0) {
        printf("converted requests:");
        for (int i = 0; i < NKINDS; i++)
            printf(" %s %d", kind_names[i], seen[i]);
        printf("\n");
    }

    CHECK_OK(MPI_Finalize());

    /* After MPI_Finalize: still allowed. */
    CHECK_OK(MPI_Finalized(&flag));
    CHECK(flag == 1, "finalized after MPI_Finalize");
    predefined_handles();
    through_all(&pre, pre_out);
    return 0;
}

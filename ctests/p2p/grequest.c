/* Generalized requests (MPI_Grequest_start, MPI_Grequest_complete; issue 29 item 9):
 * query_fn fills the status at Wait/Test/Request_get_status, free_fn runs once when
 * the request is both complete and freed, cancel_fn gets the complete flag; every
 * Wait/Test form serves them, mixed with point-to-point requests; a query_fn's error
 * code is the request's error (MPI_ERR_IN_STATUS in Waitall). Completion comes from
 * another thread (pthreads under MPI_THREAD_MULTIPLE) as I/O layers do. */
#include <pthread.h>
#include <unistd.h>
#include "mpix_test.h"

typedef struct {
    int id;
    int source, tag, elements; /* what query_fn reports */
    int query_rc;              /* what query_fn returns */
    int queried, freed, cancels, cancel_complete;
    int cancelled;             /* query_fn marks the status cancelled */
    MPI_Request req;
} op_t;

static int query_fn(void *extra, MPI_Status *st)
{
    op_t *o = extra;
    o->queried++;
    st->MPI_SOURCE = o->source; /* MPI_Status_set_source is MPI-4.1; the fields are public */
    st->MPI_TAG = o->tag;
    if (o->id % 2)
        CHECK_OK(MPI_Status_set_elements(st, MPI_INT, o->elements));
    else
        CHECK_OK(MPI_Status_set_elements_x(st, MPI_INT, (MPI_Count)o->elements));
    CHECK_OK(MPI_Status_set_cancelled(st, o->cancelled));
    return o->query_rc;
}

static int free_fn(void *extra)
{
    ((op_t *)extra)->freed++;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    op_t *o = extra;
    o->cancels++;
    o->cancel_complete = complete;
    o->cancelled = 1;
    return MPI_SUCCESS;
}

static void start(op_t *o, int id)
{
    memset(o, 0, sizeof *o);
    o->id = id;
    o->source = 100 + id;
    o->tag = 200 + id;
    o->elements = 3 + id;
    CHECK_OK(MPI_Grequest_start(query_fn, free_fn, cancel_fn, o, &o->req));
    CHECK(o->req != MPI_REQUEST_NULL, "MPI_Grequest_start gave MPI_REQUEST_NULL");
}

/* The completing thread: completes the requests it is given after a pause. */
typedef struct {
    MPI_Request reqs[8];
    int n;
    useconds_t delay;
} completer_t;

static void *completer(void *arg)
{
    completer_t *c = arg;
    usleep(c->delay);
    for (int i = 0; i < c->n; i++)
        CHECK_OK(MPI_Grequest_complete(c->reqs[i]));
    return NULL;
}

static pthread_t later(completer_t *c)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, completer, c) == 0, "pthread_create");
    return t;
}

static void check_status(const MPI_Status *st, const op_t *o, const char *what)
{
    int count = -1;
    CHECK(st->MPI_SOURCE == o->source && st->MPI_TAG == o->tag, "%s: source %d tag %d", what, st->MPI_SOURCE, st->MPI_TAG);
    CHECK_OK(MPI_Get_count(st, MPI_INT, &count));
    CHECK(count == o->elements, "%s: count %d, want %d", what, count, o->elements);
    MPI_Count big = -1;
    CHECK_OK(MPI_Get_elements_x(st, MPI_INT, &big));
    CHECK(big == o->elements, "%s: elements %lld", what, (long long)big);
}

static void test_wait_from_thread(void)
{
    op_t o;
    start(&o, 1);
    int flag = 1;
    MPI_Status st;
    CHECK_OK(MPI_Request_get_status(o.req, &flag, &st));
    CHECK(!flag && o.queried == 0, "get_status before completion: flag %d, queried %d", flag, o.queried);
    CHECK_OK(MPI_Test(&o.req, &flag, &st));
    CHECK(!flag && o.req != MPI_REQUEST_NULL, "Test before completion");
    completer_t c = {{o.req}, 1, 20000};
    pthread_t t = later(&c);
    CHECK_OK(MPI_Wait(&o.req, &st));
    pthread_join(t, NULL);
    CHECK(o.req == MPI_REQUEST_NULL, "Wait left the handle");
    CHECK(o.queried == 1 && o.freed == 1, "Wait: queried %d freed %d", o.queried, o.freed);
    check_status(&st, &o, "Wait");
}

static void test_get_status_then_test(void)
{
    op_t o;
    start(&o, 2);
    CHECK_OK(MPI_Grequest_complete(o.req));
    int flag = 0;
    MPI_Status st;
    CHECK_OK(MPI_Request_get_status(o.req, &flag, &st));
    CHECK(flag && o.queried == 1 && o.freed == 0, "get_status: flag %d queried %d freed %d", flag, o.queried, o.freed);
    check_status(&st, &o, "Request_get_status");
    CHECK(o.req != MPI_REQUEST_NULL, "get_status freed the request");
    /* Completing twice is an error. */
    CHECK_CLASS(MPI_Grequest_complete(o.req), MPI_ERR_REQUEST);
    flag = 0;
    while (!flag)
        CHECK_OK(MPI_Test(&o.req, &flag, &st));
    CHECK(o.req == MPI_REQUEST_NULL && o.queried == 2 && o.freed == 1, "Test: queried %d freed %d", o.queried, o.freed);
    check_status(&st, &o, "Test");
}

/* Waitall over generalized requests completed by a thread and a point-to-point pair;
 * one query_fn fails: MPI_ERR_IN_STATUS with each status's MPI_ERROR. */
static void test_waitall_mixed(void)
{
    op_t o[3];
    for (int i = 0; i < 3; i++)
        start(&o[i], 10 + i);
    o[1].query_rc = MPI_ERR_OTHER;
    int sendv = 42, recvv = 0;
    MPI_Request reqs[5];
    MPI_Status sts[5];
    CHECK_OK(MPI_Irecv(&recvv, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &reqs[0]));
    reqs[1] = o[0].req;
    reqs[2] = o[1].req;
    CHECK_OK(MPI_Isend(&sendv, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &reqs[3]));
    reqs[4] = o[2].req;
    completer_t c = {{o[2].req, o[0].req, o[1].req}, 3, 10000};
    pthread_t t = later(&c);
    for (int i = 0; i < 5; i++)
        sts[i].MPI_ERROR = -1;
    CHECK_CLASS(MPI_Waitall(5, reqs, sts), MPI_ERR_IN_STATUS);
    pthread_join(t, NULL);
    CHECK(recvv == 42, "the receive got %d", recvv);
    CHECK(sts[0].MPI_SOURCE == 0 && sts[0].MPI_TAG == 7 && sts[0].MPI_ERROR == MPI_SUCCESS, "receive's status");
    CHECK(sts[1].MPI_ERROR == MPI_SUCCESS && sts[4].MPI_ERROR == MPI_SUCCESS, "good grequests' MPI_ERROR %d %d",
          sts[1].MPI_ERROR, sts[4].MPI_ERROR);
    CHECK(mpix_test_class(sts[2].MPI_ERROR) == MPI_ERR_OTHER, "failed query_fn's MPI_ERROR %d", sts[2].MPI_ERROR);
    check_status(&sts[1], &o[0], "Waitall [1]");
    check_status(&sts[4], &o[2], "Waitall [4]");
    for (int i = 0; i < 5; i++)
        CHECK(reqs[i] == MPI_REQUEST_NULL, "Waitall left request %d", i);
    for (int i = 0; i < 3; i++)
        CHECK(o[i].queried == 1 && o[i].freed == 1, "grequest %d: queried %d freed %d", i, o[i].queried, o[i].freed);

    /* A single Wait on a failing query_fn returns its error. */
    op_t bad;
    start(&bad, 20);
    bad.query_rc = MPI_ERR_OTHER;
    CHECK_OK(MPI_Grequest_complete(bad.req));
    CHECK_CLASS(MPI_Wait(&bad.req, MPI_STATUS_IGNORE), MPI_ERR_OTHER);
    CHECK(bad.freed == 1 && bad.req == MPI_REQUEST_NULL, "failed Wait: freed %d", bad.freed);
}

static void test_any_some(void)
{
    op_t o[4];
    MPI_Request reqs[4];
    for (int i = 0; i < 4; i++) {
        start(&o[i], 30 + i);
        reqs[i] = o[i].req;
    }
    /* Waitany: the one a thread completes. */
    completer_t c = {{o[2].req}, 1, 10000};
    pthread_t t = later(&c);
    int idx = -1;
    MPI_Status st;
    CHECK_OK(MPI_Waitany(4, reqs, &idx, &st));
    pthread_join(t, NULL);
    CHECK(idx == 2 && reqs[2] == MPI_REQUEST_NULL, "Waitany: index %d", idx);
    check_status(&st, &o[2], "Waitany");
    /* Testany and Testsome with nothing complete. */
    int flag = 1, outcount = -1, indices[4];
    MPI_Status sts[4];
    CHECK_OK(MPI_Testany(4, reqs, &idx, &flag, &st));
    CHECK(!flag && idx == MPI_UNDEFINED, "Testany before completion: flag %d index %d", flag, idx);
    CHECK_OK(MPI_Testsome(4, reqs, &outcount, indices, sts));
    CHECK(outcount == 0, "Testsome before completion: %d", outcount);
    CHECK_OK(MPI_Testall(4, reqs, &flag, sts));
    CHECK(!flag, "Testall before completion");
    /* Waitsome: two completed. */
    CHECK_OK(MPI_Grequest_complete(o[0].req));
    CHECK_OK(MPI_Grequest_complete(o[3].req));
    CHECK_OK(MPI_Waitsome(4, reqs, &outcount, indices, sts));
    CHECK(outcount == 2 && indices[0] == 0 && indices[1] == 3, "Waitsome: %d (%d %d)", outcount, indices[0], indices[1]);
    check_status(&sts[1], &o[3], "Waitsome");
    /* Testall with the last. */
    CHECK_OK(MPI_Grequest_complete(o[1].req));
    flag = 0;
    CHECK_OK(MPI_Testall(4, reqs, &flag, sts));
    CHECK(flag, "Testall after completion");
    check_status(&sts[1], &o[1], "Testall");
    for (int i = 0; i < 4; i++)
        CHECK(o[i].queried >= 1 && o[i].freed == 1 && reqs[i] == MPI_REQUEST_NULL, "any/some %d: queried %d freed %d",
              i, o[i].queried, o[i].freed);
}

static void test_cancel_and_free(void)
{
    /* Cancel before completion: cancel_fn sees complete = 0, query_fn reports the
     * cancellation. */
    op_t o;
    start(&o, 40);
    CHECK_OK(MPI_Cancel(&o.req));
    CHECK(o.cancels == 1 && o.cancel_complete == 0, "cancel: %d calls, complete %d", o.cancels, o.cancel_complete);
    CHECK_OK(MPI_Grequest_complete(o.req));
    CHECK_OK(MPI_Cancel(&o.req));
    CHECK(o.cancels == 2 && o.cancel_complete == 1, "cancel after completion: complete %d", o.cancel_complete);
    MPI_Status st;
    CHECK_OK(MPI_Wait(&o.req, &st));
    int cancelled = 0;
    CHECK_OK(MPI_Test_cancelled(&st, &cancelled));
    CHECK(cancelled, "the cancelled grequest's status is not cancelled");

    /* Free before completion: free_fn waits for MPI_Grequest_complete. */
    op_t f;
    start(&f, 41);
    MPI_Request keep = f.req;
    CHECK_OK(MPI_Request_free(&f.req));
    CHECK(f.req == MPI_REQUEST_NULL && f.freed == 0, "Request_free before completion: freed %d", f.freed);
    CHECK_OK(MPI_Grequest_complete(keep));
    CHECK(f.freed == 1 && f.queried == 0, "after completing a freed grequest: freed %d queried %d", f.freed, f.queried);

    /* Free after completion: free_fn at once, no query. */
    start(&f, 42);
    CHECK_OK(MPI_Grequest_complete(f.req));
    CHECK_OK(MPI_Request_free(&f.req));
    CHECK(f.freed == 1 && f.queried == 0, "Request_free after completion: freed %d", f.freed);

    /* MPI_Grequest_complete of a request that is not generalized. */
    int v = 0;
    MPI_Request r;
    CHECK_OK(MPI_Irecv(&v, 1, MPI_INT, 0, 9, MPI_COMM_SELF, &r));
    CHECK_CLASS(MPI_Grequest_complete(r), MPI_ERR_REQUEST);
    CHECK_OK(MPI_Send(&v, 1, MPI_INT, 0, 9, MPI_COMM_SELF));
    CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK_CLASS(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
    CHECK_CLASS(MPI_Grequest_start(NULL, free_fn, cancel_fn, NULL, &r), MPI_ERR_ARG);
}

/* Many threads each running their own generalized requests at once. */
static void *worker(void *arg)
{
    int id = (int)(long)arg;
    for (int i = 0; i < 50; i++) {
        op_t o;
        start(&o, id);
        completer_t c = {{o.req}, 1, 0};
        pthread_t t = later(&c);
        MPI_Status st;
        CHECK_OK(MPI_Wait(&o.req, &st));
        pthread_join(t, NULL);
        check_status(&st, &o, "threaded Wait");
        CHECK(o.freed == 1, "threaded: freed %d", o.freed);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    test_wait_from_thread();
    test_get_status_then_test();
    test_waitall_mixed();
    test_any_some();
    test_cancel_and_free();
    pthread_t th[4];
    for (long i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, worker, (void *)i) == 0, "pthread_create");
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("p2p grequest: ok\n");
    MPI_Finalize();
    return 0;
}

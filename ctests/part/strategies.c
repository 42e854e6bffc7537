/* strategies: mpix's partition aggregation ([PA], include/mpix.h section 4) chosen
 * with info keys on MPI_Psend_init, each with several rounds of 16 user partitions of
 * 1 KiB, 64 KiB and 1 MiB in all, made ready in a scrambled order, data checked:
 *   mpix_part_aggregation = none, table, ploggp, timer_ploggp; none with
 *   mpix_part_transport_partitions = 1, 2 and 4; timer_ploggp with
 *   mpix_part_delta_usec = 50; and a request without info (the default).
 * For timer_ploggp one partition is made ready ~2 ms after the others (the late
 * partition the timer is for). The receive side never passes info.
 * With MPIX_HAVE_PART_AGGREGATION (mpix; required there), after each MPI_Wait:
 *   - MPIX_Part_get_info: mpix_part_aggregation is the strategy asked for, on both
 *     sides (the receiver learns the sender's); mpix_part_transport_partitions is the
 *     forced count where one was forced; mpix_part_writes (the last round's writes)
 *     is 1..16, and equals the forced count with "none"; mpix_part_path is one of
 *     shm, ofi, am, self, null, and not shm with MPIX_SHM=0;
 *   - MPI_T: the counter mpix_part_writes (MPI_T_PVAR_CLASS_COUNTER, one
 *     MPI_UNSIGNED_LONG_LONG) grows on the sender by at least the writes reported.
 * Arguments: [rounds] [envnone]. With "envnone" (run under
 * MPIX_PART_AGGREGATION=none) the request without info must report "none"; else the
 * default is only checked to be one of the four strategies. The pairs' even rank
 * sends. */
#include "part_util.h"

#if defined(MPIX_VERSION) && !defined(MPIX_HAVE_PART_AGGREGATION)
#error "mpix.h does not define MPIX_HAVE_PART_AGGREGATION: partitioned aggregation is required"
#endif

#define TAG 61
enum { P = 16 };

struct strat {
    const char *aggr; /* NULL: no info */
    const char *tparts;
    const char *delta;
    const char *qps; /* mpix_part_num_qps */
};
static const struct strat strats[] = {
    {NULL, NULL, NULL, NULL},        {"none", NULL, NULL, NULL}, {"table", NULL, NULL, NULL},
    {"ploggp", NULL, NULL, NULL},    {"timer_ploggp", NULL, NULL, NULL}, {"none", "1", NULL, NULL},
    {"none", "2", NULL, NULL},       {"none", "4", NULL, NULL},  {"timer_ploggp", NULL, "50", NULL},
    {"none", "4", NULL, "2"},
};
static const long sizes[] = {1024, 64 * 1024, 1024 * 1024};
static int envnone;

#ifdef MPIX_HAVE_PART_AGGREGATION
static MPI_T_pvar_session pv_s;
static MPI_T_pvar_handle pv_h;

static void pvar_open(void)
{
    int provided, n, idx = -1, count = 0;
    CHECK_OK(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    CHECK_OK(MPI_T_pvar_get_num(&n));
    for (int i = 0; i < n && idx < 0; i++) {
        char nm[256], desc[1024];
        int nl = sizeof nm, dl = sizeof desc, verb, cls, bind, ro, ct, at;
        MPI_Datatype dt;
        MPI_T_enum en;
        CHECK_OK(MPI_T_pvar_get_info(i, nm, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &ct, &at));
        if (strcmp(nm, "mpix_part_writes") != 0)
            continue;
        idx = i;
        CHECK(cls == MPI_T_PVAR_CLASS_COUNTER, "mpix_part_writes: class %d, want MPI_T_PVAR_CLASS_COUNTER", cls);
        CHECK(dt == MPI_UNSIGNED_LONG_LONG, "mpix_part_writes: datatype is not MPI_UNSIGNED_LONG_LONG");
        CHECK_OK(MPI_T_pvar_session_create(&pv_s));
        CHECK_OK(MPI_T_pvar_handle_alloc(pv_s, idx, NULL, &pv_h, &count));
        CHECK(count == 1, "mpix_part_writes has %d elements, want 1", count);
        if (!ct)
            CHECK_OK(MPI_T_pvar_start(pv_s, pv_h));
    }
    CHECK(idx >= 0, "no MPI_T performance variable mpix_part_writes");
}

static unsigned long long pvar_read(void)
{
    unsigned long long v = 0;
    CHECK_OK(MPI_T_pvar_read(pv_s, pv_h, &v));
    return v;
}

static void pvar_close(void)
{
    CHECK_OK(MPI_T_pvar_handle_free(pv_s, &pv_h));
    CHECK_OK(MPI_T_pvar_session_free(&pv_s));
    CHECK_OK(MPI_T_finalize());
}

/* check_info: what the request reports after a completed round; returns its
 * mpix_part_writes. */
static long check_info(MPI_Request req, const struct strat *s, const char *what)
{
    MPI_Info info = MPI_INFO_NULL;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag = 0;
    long writes;
    CHECK_OK(MPIX_Part_get_info(req, &info));
    CHECK(info != MPI_INFO_NULL, "%s: MPIX_Part_get_info returned MPI_INFO_NULL", what);

    CHECK_OK(MPI_Info_get(info, MPIX_INFO_PART_AGGREGATION, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag, "%s: no %s key", what, MPIX_INFO_PART_AGGREGATION);
    if (s->aggr != NULL)
        CHECK(strcmp(v, s->aggr) == 0, "%s: %s is \"%s\", want \"%s\"", what, MPIX_INFO_PART_AGGREGATION, v, s->aggr);
    else if (envnone)
        CHECK(strcmp(v, MPIX_PART_AGGR_NONE) == 0, "%s: with MPIX_PART_AGGREGATION=none, %s is \"%s\"", what,
              MPIX_INFO_PART_AGGREGATION, v);
    else
        CHECK(strcmp(v, "none") == 0 || strcmp(v, "table") == 0 || strcmp(v, "ploggp") == 0 ||
                  strcmp(v, "timer_ploggp") == 0,
              "%s: default %s is \"%s\"", what, MPIX_INFO_PART_AGGREGATION, v);

    if (s->tparts != NULL) {
        CHECK_OK(MPI_Info_get(info, MPIX_INFO_PART_TRANSPORT_PARTITIONS, MPI_MAX_INFO_VAL, v, &flag));
        CHECK(flag && strcmp(v, s->tparts) == 0, "%s: %s is \"%s\" (present %d), want \"%s\"", what,
              MPIX_INFO_PART_TRANSPORT_PARTITIONS, flag ? v : "", flag, s->tparts);
    }

    CHECK_OK(MPI_Info_get(info, MPIX_INFO_PART_WRITES, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag, "%s: no %s key", what, MPIX_INFO_PART_WRITES);
    char *end;
    writes = strtol(v, &end, 10);
    CHECK(*v != 0 && *end == 0, "%s: %s is \"%s\", not a decimal number", what, MPIX_INFO_PART_WRITES, v);
    CHECK(writes >= 1 && writes <= P, "%s: %s is %ld, want 1..%d", what, MPIX_INFO_PART_WRITES, writes, P);
    if (s->tparts != NULL && s->aggr != NULL && strcmp(s->aggr, "none") == 0)
        CHECK(writes == atol(s->tparts), "%s: %ld writes with %s forced to %s", what, writes,
              MPIX_INFO_PART_TRANSPORT_PARTITIONS, s->tparts);

    /* Network contexts: what was asked where the data crosses libfabric (the process
     * has at least 2 VCIs by default), 1 where it has none to spread over. */
    char q[MPI_MAX_INFO_VAL + 1];
    CHECK_OK(MPI_Info_get(info, MPIX_INFO_PART_NUM_QPS, MPI_MAX_INFO_VAL, q, &flag));
    CHECK(flag, "%s: no %s key", what, MPIX_INFO_PART_NUM_QPS);
    CHECK_OK(MPI_Info_get(info, MPIX_INFO_PART_PATH, MPI_MAX_INFO_VAL, v, &flag));
    CHECK(flag, "%s: no %s key", what, MPIX_INFO_PART_PATH);
    if (s->qps != NULL && strcmp(v, "ofi") == 0)
        CHECK(strcmp(q, s->qps) == 0, "%s: %s is %s over ofi, want %s", what, MPIX_INFO_PART_NUM_QPS, q, s->qps);
    else
        CHECK(strcmp(q, "1") == 0, "%s: %s is %s on path %s, want 1", what, MPIX_INFO_PART_NUM_QPS, q, v);
    CHECK(strcmp(v, "shm") == 0 || strcmp(v, "ofi") == 0 || strcmp(v, "am") == 0 || strcmp(v, "self") == 0 ||
              strcmp(v, "null") == 0,
          "%s: %s is \"%s\"", what, MPIX_INFO_PART_PATH, v);
    const char *shm = getenv("MPIX_SHM");
    if (shm != NULL && strcmp(shm, "0") == 0)
        CHECK(strcmp(v, "shm") != 0, "%s: %s is shm with MPIX_SHM=0", what, MPIX_INFO_PART_PATH);
    CHECK_OK(MPI_Info_free(&info));
    return writes;
}
#endif

static void run(const struct strat *s, long bytes, int nrounds, int si)
{
    int peer = pair_peer(), sender = rank % 2 == 0, late = s->aggr != NULL && strcmp(s->aggr, "timer_ploggp") == 0;
    long n = bytes / sizeof(int), c = n / P;
    int *buf = malloc(bytes);
    MPI_Request req;
    MPI_Info info = MPI_INFO_NULL;
    MPI_Status st;
    char what[160];
    snprintf(what, sizeof what, "%s%s%s%s%s%s%s, %ld bytes", s->aggr ? s->aggr : "(no info)",
             s->tparts ? " transport_partitions=" : "", s->tparts ? s->tparts : "", s->delta ? " delta_usec=" : "",
             s->delta ? s->delta : "", s->qps ? " num_qps=" : "", s->qps ? s->qps : "", bytes);
    if (sender && s->aggr != NULL) {
        CHECK_OK(MPI_Info_create(&info));
        CHECK_OK(MPI_Info_set(info, "mpix_part_aggregation", s->aggr));
        if (s->tparts)
            CHECK_OK(MPI_Info_set(info, "mpix_part_transport_partitions", s->tparts));
        if (s->delta)
            CHECK_OK(MPI_Info_set(info, "mpix_part_delta_usec", s->delta));
        if (s->qps)
            CHECK_OK(MPI_Info_set(info, "mpix_part_num_qps", s->qps));
    }
    if (sender)
        CHECK_OK(MPI_Psend_init(buf, P, c, MPI_INT, peer, TAG, MPI_COMM_WORLD, info, &req));
    else
        CHECK_OK(MPI_Precv_init(buf, P, c, MPI_INT, peer, TAG, MPI_COMM_WORLD, MPI_INFO_NULL, &req));
    if (info != MPI_INFO_NULL)
        CHECK_OK(MPI_Info_free(&info));
    for (int r = 0; r < nrounds; r++) {
        int rr = r + 10 * si;
#ifdef MPIX_HAVE_PART_AGGREGATION
        unsigned long long before = sender ? pvar_read() : 0;
#endif
        if (sender) {
            int perm[P];
            fill_ints(buf, n, rr, rank);
            CHECK_OK(MPI_Start(&req));
            scramble(perm, P, r + si);
            for (int i = 0; i < P - late; i++)
                CHECK_OK(MPI_Pready(perm[i], req));
            if (late) {
                sleep_usec(2000);
                CHECK_OK(MPI_Pready(perm[P - 1], req));
            }
            CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        } else {
            memset(buf, 0xff, bytes);
            CHECK_OK(MPI_Start(&req));
            for (int p = P - 1; p >= 0; p--) {
                spin_arrived(req, p, what);
                check_ints(buf, p * c, (p + 1) * c, rr, peer, what);
            }
            CHECK_OK(MPI_Wait(&req, &st));
            check_recv_status(&st, MPI_INT, peer, TAG, (int)n, what);
            check_ints(buf, 0, n, rr, peer, what);
        }
#ifdef MPIX_HAVE_PART_AGGREGATION
        long writes = check_info(req, s, what);
        if (sender) {
            unsigned long long after = pvar_read();
            CHECK(after - before >= (unsigned long long)writes, "%s: MPI_T mpix_part_writes grew by %llu, the request reports %ld writes",
                  what, after - before, writes);
        }
#endif
    }
    CHECK_OK(MPI_Request_free(&req));
    free(buf);
}

int main(int argc, char **argv)
{
    int nrounds = argc > 1 ? atoi(argv[1]) : 4;
    envnone = argc > 2 && strcmp(argv[2], "envnone") == 0;
    part_init(&argc, &argv);
    if (envnone) {
        const char *e = getenv("MPIX_PART_AGGREGATION");
        CHECK(e != NULL && strcmp(e, "none") == 0, "envnone: MPIX_PART_AGGREGATION is %s", e ? e : "(unset)");
    }
#ifdef MPIX_HAVE_PART_AGGREGATION
    pvar_open();
#endif
    if (pair_peer() != MPI_PROC_NULL) {
        int ns = envnone ? 1 : (int)(sizeof strats / sizeof strats[0]);
        for (int si = 0; si < ns; si++)
            for (int zi = 0; zi < 3; zi++)
                run(&strats[si], sizes[zi], nrounds, si);
    }
#ifdef MPIX_HAVE_PART_AGGREGATION
    pvar_close();
#endif
    CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank == 0)
        printf("part strategies%s: %d rounds, %d processes: OK\n", envnone ? " (MPIX_PART_AGGREGATION=none)" : "",
               nrounds, nproc);
    CHECK_OK(MPI_Finalize());
    return 0;
}

/* attr: attribute caching on communicators and datatypes (MPI-4.1 §7.7).
 * - predefined attributes (MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
 *   MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM) on every communicator;
 * - copy callbacks on MPI_Comm_dup and MPI_Comm_idup: MPI_COMM_NULL_COPY_FN,
 *   MPI_COMM_DUP_FN and user callbacks that copy or decline, in keyval creation order,
 *   with extra_state passed through;
 * - delete callbacks exactly once per attribute on MPI_Comm_free, MPI_Comm_delete_attr
 *   and MPI_Comm_set_attr replacing a value, with the attribute still readable while
 *   its callback runs;
 * - a keyval freed while attributes use it;
 * - callback errors: a copy error fails MPI_Comm_dup with the callback's code, a
 *   delete error fails MPI_Comm_free, MPI_Comm_delete_attr and MPI_Comm_set_attr and
 *   keeps the attribute;
 * - datatype attributes through MPI_Type_dup and MPI_Type_free, on derived and
 *   predefined types;
 * - the MPI-1 names (MPI_Keyval_create, MPI_Attr_put/get/delete, MPI_Keyval_free);
 * - errors under MPI_ERRORS_RETURN: invalid keyval, keyval of the wrong kind,
 *   predefined keyval set, deleted or freed, NULL output;
 * - MPI_Finalize deletes MPI_COMM_SELF's attributes first, newest first, then
 *   MPI_COMM_WORLD's, while MPI still works. */
#include <limits.h>
#include <stdint.h>
#include "mpix_test.h"

#define MAXLOG 64

/* A log of callback events: kind ('c' copy, 'd' delete), keyval and value. */
static struct {
    char what;
    int keyval;
    intptr_t val;
    MPI_Comm comm;
} events[MAXLOG];
static int nevents;

static void logev(char what, int keyval, void *val, MPI_Comm comm)
{
    CHECK(nevents < MAXLOG, "event log full");
    events[nevents].what = what;
    events[nevents].keyval = keyval;
    events[nevents].val = (intptr_t)val;
    events[nevents].comm = comm;
    nevents++;
}

static int count(char what, int keyval)
{
    int n = 0;
    for (int i = 0; i < nevents; i++)
        if (events[i].what == what && events[i].keyval == keyval)
            n++;
    return n;
}

static int extra_tag = 42; /* extra_state points here */

/* copy_plus: keeps the attribute with value+1 (checks extra_state). */
static int copy_plus(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    CHECK(extra == &extra_tag, "copy callback got extra_state %p", extra);
    logev('c', keyval, in, comm);
    *(void **)out = (void *)((intptr_t)in + 1);
    *flag = 1;
    return MPI_SUCCESS;
}

/* copy_no: declines to copy. */
static int copy_no(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)extra;
    (void)out;
    logev('c', keyval, in, comm);
    *flag = 0;
    return MPI_SUCCESS;
}

/* del_log: logs and, for the keyval it guards, checks that the attribute is still
 * there with the value being deleted while the callback runs. */
static int del_check_keyval = MPI_KEYVAL_INVALID;
static int del_log(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)extra;
    logev('d', keyval, val, comm);
    if (keyval == del_check_keyval) {
        void *v;
        int flag;
        CHECK_OK(MPI_Comm_get_attr(comm, keyval, &v, &flag));
        CHECK(flag && v == val, "attribute not readable during its delete callback");
    }
    return MPI_SUCCESS;
}

/* Callbacks that fail with a chosen code while bomb_code != MPI_SUCCESS. */
static int bomb_code = MPI_SUCCESS;
static int copy_bomb(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return bomb_code;
}
static int del_bomb(MPI_Comm comm, int keyval, void *val, void *extra)
{
    logev('d', keyval, val, comm);
    (void)extra;
    return bomb_code;
}

static void *getv(MPI_Comm comm, int keyval, int *flag)
{
    void *v = (void *)-1;
    CHECK_OK(MPI_Comm_get_attr(comm, keyval, &v, flag));
    return v;
}

static void test_predefined(int size)
{
    static const int keys[] = {MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL,
                               MPI_UNIVERSE_SIZE, MPI_LASTUSEDCODE, MPI_APPNUM};
    MPI_Comm dup;
    int *p, flag, cls;

    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    MPI_Comm comms[] = {MPI_COMM_WORLD, MPI_COMM_SELF, dup};
    for (unsigned c = 0; c < 3; c++) {
        for (unsigned k = 0; k < sizeof keys / sizeof *keys; k++) {
            p = NULL;
            CHECK_OK(MPI_Comm_get_attr(comms[c], keys[k], &p, &flag));
            CHECK(flag && p != NULL, "predefined key 0x%x missing on comm %u", keys[k], c);
        }
        CHECK_OK(MPI_Comm_get_attr(comms[c], MPI_TAG_UB, &p, &flag));
        CHECK(*p >= 32767, "MPI_TAG_UB %d below the minimum MPI allows", *p);
        CHECK_OK(MPI_Comm_get_attr(comms[c], MPI_HOST, &p, &flag));
        CHECK(*p == MPI_PROC_NULL, "MPI_HOST %d", *p);
        CHECK_OK(MPI_Comm_get_attr(comms[c], MPI_IO, &p, &flag));
        CHECK(*p == MPI_ANY_SOURCE, "MPI_IO %d", *p);
        CHECK_OK(MPI_Comm_get_attr(comms[c], MPI_WTIME_IS_GLOBAL, &p, &flag));
        CHECK(*p == 0 || *p == 1, "MPI_WTIME_IS_GLOBAL %d", *p);
        CHECK_OK(MPI_Comm_get_attr(comms[c], MPI_UNIVERSE_SIZE, &p, &flag));
        CHECK(*p >= size, "MPI_UNIVERSE_SIZE %d < world size %d", *p, size);
        CHECK_OK(MPI_Comm_get_attr(comms[c], MPI_APPNUM, &p, &flag));
        CHECK(*p == 0, "MPI_APPNUM %d for a single-program job", *p);
    }

    /* MPI_TAG_UB is a usable tag. */
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &p, &flag));
    int tag_ub = *p, out = 7, in = 0;
    CHECK_OK(MPI_Sendrecv(&out, 1, MPI_INT, 0, tag_ub, &in, 1, MPI_INT, 0, tag_ub,
                          MPI_COMM_SELF, MPI_STATUS_IGNORE));
    CHECK(in == 7, "message with tag MPI_TAG_UB lost");

    /* MPI_LASTUSEDCODE follows MPI_Add_error_class. */
    CHECK_OK(MPI_Add_error_class(&cls));
    CHECK_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    CHECK(flag && *p >= cls, "MPI_LASTUSEDCODE %d below new class %d", *p, cls);
    int code;
    CHECK_OK(MPI_Add_error_code(cls, &code));
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &p, &flag));
    CHECK(flag && *p >= code && *p > cls, "MPI_LASTUSEDCODE %d after new code %d", *p, code);

    /* Predefined attributes cannot be set, deleted or freed. */
    int v = 1, key = MPI_TAG_UB;
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, MPI_TAG_UB), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Attr_put(MPI_COMM_WORLD, MPI_APPNUM, &v), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL);
    CHECK(key == MPI_TAG_UB, "failed free changed the keyval");
    /* Window keyvals are not communicator keyvals. */
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WIN_BASE, &p, &flag), MPI_ERR_KEYVAL);
    CHECK_OK(MPI_Comm_free(&dup));
}

static void test_copy_delete(void)
{
    int knull, kdup, kplus, kno, kcheck;
    int flag;
    MPI_Comm dup, idup;
    MPI_Request req;

    nevents = 0;
    /* Created in this order; set below in another order. */
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_log, &knull, &extra_tag));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, del_log, &kdup, &extra_tag));
    CHECK_OK(MPI_Comm_create_keyval(copy_plus, del_log, &kplus, &extra_tag));
    CHECK_OK(MPI_Comm_create_keyval(copy_no, MPI_COMM_NULL_DELETE_FN, &kno, NULL));
    CHECK_OK(MPI_Comm_create_keyval(copy_plus, del_log, &kcheck, &extra_tag));
    del_check_keyval = kcheck;
    CHECK(knull != kdup && kdup != kplus && kplus != kno && kno != kcheck, "keyvals not distinct");

    MPI_Comm base;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &base));
    getv(base, kplus, &flag);
    CHECK(!flag, "attribute set before any set_attr");
    CHECK_OK(MPI_Comm_set_attr(base, kcheck, (void *)500));
    CHECK_OK(MPI_Comm_set_attr(base, kno, (void *)400));
    CHECK_OK(MPI_Comm_set_attr(base, kplus, (void *)300));
    CHECK_OK(MPI_Comm_set_attr(base, kdup, (void *)200));
    CHECK_OK(MPI_Comm_set_attr(base, knull, (void *)100));
    CHECK(nevents == 0, "callbacks ran on set of new attributes");

    /* Dup: null copy drops, DUP_FN copies the value, copy_plus adds one, copy_no drops;
     * user callbacks in keyval creation order. */
    CHECK_OK(MPI_Comm_dup(base, &dup));
    CHECK(nevents == 3, "%d copy callbacks, want 3", nevents);
    CHECK(events[0].keyval == kplus && events[1].keyval == kno && events[2].keyval == kcheck,
          "copy callbacks out of keyval creation order");
    for (int i = 0; i < 3; i++)
        CHECK(events[i].what == 'c' && events[i].comm == base, "copy event %d wrong", i);
    getv(dup, knull, &flag);
    CHECK(!flag, "MPI_COMM_NULL_COPY_FN copied");
    CHECK(getv(dup, kdup, &flag) == (void *)200 && flag, "MPI_COMM_DUP_FN value");
    CHECK(getv(dup, kplus, &flag) == (void *)301 && flag, "copy callback value");
    getv(dup, kno, &flag);
    CHECK(!flag, "declined attribute copied");
    CHECK(getv(dup, kcheck, &flag) == (void *)501 && flag, "copy callback value");
    CHECK(getv(base, kplus, &flag) == (void *)300 && flag, "parent changed by dup");

    /* Idup copies too, when it completes. */
    nevents = 0;
    CHECK_OK(MPI_Comm_idup(base, &idup, &req));
    CHECK_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    CHECK(nevents == 3, "%d copy callbacks for idup, want 3", nevents);
    CHECK(getv(idup, kplus, &flag) == (void *)301 && flag, "idup: copy callback value");
    CHECK(getv(idup, kdup, &flag) == (void *)200 && flag, "idup: MPI_COMM_DUP_FN value");
    getv(idup, knull, &flag);
    CHECK(!flag, "idup: MPI_COMM_NULL_COPY_FN copied");

    /* Replacing a value runs the delete callback on the old one, once. */
    nevents = 0;
    CHECK_OK(MPI_Comm_set_attr(dup, kplus, (void *)302));
    CHECK(nevents == 1 && events[0].what == 'd' && events[0].val == 301 && events[0].comm == dup,
          "replace: %d events", nevents);
    CHECK(getv(dup, kplus, &flag) == (void *)302, "replaced value");

    /* delete_attr runs it once; a second delete_attr finds nothing and succeeds. */
    nevents = 0;
    CHECK_OK(MPI_Comm_delete_attr(dup, kcheck));
    CHECK(nevents == 1 && events[0].val == 501, "delete_attr: %d events", nevents);
    CHECK_OK(MPI_Comm_delete_attr(dup, kcheck));
    CHECK(nevents == 1, "second delete_attr ran a callback");
    getv(dup, kcheck, &flag);
    CHECK(!flag, "deleted attribute still there");

    /* Free runs each remaining attribute's delete callback exactly once, and none for the
     * ones already deleted. */
    nevents = 0;
    CHECK_OK(MPI_Comm_free(&dup));
    CHECK(dup == MPI_COMM_NULL, "free did not null the handle");
    CHECK(nevents == 2 && count('d', kdup) == 1 && count('d', kplus) == 1, "free: %d events", nevents);
    nevents = 0;
    CHECK_OK(MPI_Comm_free(&idup));
    CHECK(nevents == 3 && count('d', kdup) == 1 && count('d', kplus) == 1 && count('d', kcheck) == 1,
          "free of idup: %d events", nevents);
    nevents = 0;
    CHECK_OK(MPI_Comm_free(&base));
    CHECK(nevents == 4 && count('d', knull) == 1 && count('d', kdup) == 1 && count('d', kplus) == 1 &&
              count('d', kcheck) == 1,
          "free of base: %d events", nevents);
    /* Newest first: knull was set last. */
    CHECK(events[0].keyval == knull && events[3].keyval == kcheck, "free order");

    CHECK_OK(MPI_Comm_free_keyval(&knull));
    CHECK(knull == MPI_KEYVAL_INVALID, "free_keyval did not invalidate");
    CHECK_OK(MPI_Comm_free_keyval(&kdup));
    CHECK_OK(MPI_Comm_free_keyval(&kplus));
    CHECK_OK(MPI_Comm_free_keyval(&kno));
    CHECK_OK(MPI_Comm_free_keyval(&kcheck));
    del_check_keyval = MPI_KEYVAL_INVALID;
}

/* A keyval freed while attributes use it still copies and deletes them. */
static void test_freed_keyval(void)
{
    int key, saved, flag;
    MPI_Comm a, b;

    CHECK_OK(MPI_Comm_create_keyval(copy_plus, del_log, &key, &extra_tag));
    saved = key;
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_OK(MPI_Comm_set_attr(a, key, (void *)10));
    CHECK_OK(MPI_Comm_free_keyval(&key));
    CHECK(key == MPI_KEYVAL_INVALID, "free_keyval did not invalidate");
    /* The freed handle is no longer valid for the program... */
    CHECK_CLASS(MPI_Comm_set_attr(a, saved, (void *)1), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&saved), MPI_ERR_KEYVAL);
    /* ...but the attribute lives on: dup copies it, free deletes it with the keyval. */
    nevents = 0;
    CHECK_OK(MPI_Comm_dup(a, &b));
    CHECK(nevents == 1 && events[0].what == 'c' && events[0].keyval == saved, "copy of freed keyval");
    CHECK_OK(MPI_Comm_free(&a));
    CHECK_OK(MPI_Comm_free(&b));
    CHECK(nevents == 3 && count('d', saved) == 2, "deletes of freed keyval's attributes: %d", nevents);
    /* A new keyval made now does not see the old attributes. */
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, NULL));
    getv(MPI_COMM_WORLD, key, &flag);
    CHECK(!flag, "new keyval has an attribute");
    CHECK_OK(MPI_Comm_free_keyval(&key));
}

/* Errors returned by callbacks come back from the MPI call that ran them. */
static void test_callback_errors(void)
{
    int key, flag, cls, code, rc;
    MPI_Comm a, b = MPI_COMM_NULL;

    CHECK_OK(MPI_Add_error_class(&cls));
    CHECK_OK(MPI_Add_error_code(cls, &code));
    CHECK_OK(MPI_Comm_create_keyval(copy_bomb, del_bomb, &key, NULL));
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
    CHECK_OK(MPI_Comm_set_attr(a, key, (void *)1));

    /* A user-defined code passes through unchanged. */
    bomb_code = code;
    rc = MPI_Comm_dup(a, &b);
    CHECK(rc == code, "MPI_Comm_dup returned %d, want the callback's code %d", rc, code);
    if (b != MPI_COMM_NULL) {
        /* The failed duplicate has no attributes left to delete. */
        getv(b, key, &flag);
        CHECK(!flag, "failed dup kept the attribute");
        bomb_code = MPI_SUCCESS;
        CHECK_OK(MPI_Comm_free(&b));
    }
    /* A predefined class keeps its class. */
    bomb_code = MPI_ERR_OTHER;
    b = MPI_COMM_NULL;
    CHECK_CLASS(MPI_Comm_dup(a, &b), MPI_ERR_OTHER);
    if (b != MPI_COMM_NULL) {
        bomb_code = MPI_SUCCESS;
        CHECK_OK(MPI_Comm_free(&b));
    }

    /* Delete errors keep the attribute and fail the call. */
    bomb_code = MPI_ERR_ARG;
    nevents = 0;
    CHECK_CLASS(MPI_Comm_set_attr(a, key, (void *)2), MPI_ERR_ARG);
    CHECK(getv(a, key, &flag) == (void *)1 && flag, "failed replace changed the value");
    CHECK_CLASS(MPI_Comm_delete_attr(a, key), MPI_ERR_ARG);
    CHECK(getv(a, key, &flag) == (void *)1 && flag, "failed delete removed the attribute");
    bomb_code = code;
    rc = MPI_Comm_free(&a);
    CHECK(rc == code, "MPI_Comm_free returned %d, want %d", rc, code);
    CHECK(a != MPI_COMM_NULL, "failed free nulled the handle");
    CHECK(nevents == 3, "%d delete callbacks, want 3", nevents);
    /* The communicator survived the failed free. */
    int size;
    CHECK_OK(MPI_Comm_size(a, &size));
    bomb_code = MPI_SUCCESS;
    nevents = 0;
    CHECK_OK(MPI_Comm_free(&a));
    CHECK(nevents == 1, "free after fix: %d deletes", nevents);
    CHECK_OK(MPI_Comm_free_keyval(&key));
}

/* Datatype attributes: copied by MPI_Type_dup, deleted by MPI_Type_free. */
static int type_copies, type_deletes;
static MPI_Datatype type_deleted_from;
static int tcopy(MPI_Datatype t, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)keyval, (void)extra;
    type_copies++;
    *(void **)out = (void *)((intptr_t)in * 2);
    *flag = 1;
    return MPI_SUCCESS;
}
static int tdel(MPI_Datatype t, int keyval, void *val, void *extra)
{
    (void)keyval, (void)val, (void)extra;
    type_deletes++;
    type_deleted_from = t;
    return bomb_code;
}

static void test_types(void)
{
    int kt, kdup, knull, kcomm, flag;
    void *v;
    MPI_Datatype vec, dup, dup2;

    CHECK_OK(MPI_Type_create_keyval(tcopy, tdel, &kt, NULL));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_DUP_FN, MPI_TYPE_NULL_DELETE_FN, &kdup, NULL));
    CHECK_OK(MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, tdel, &knull, NULL));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kcomm, NULL));

    CHECK_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &vec));
    CHECK_OK(MPI_Type_get_attr(vec, kt, &v, &flag));
    CHECK(!flag, "new type has an attribute");
    CHECK_OK(MPI_Type_set_attr(vec, kt, (void *)5));
    CHECK_OK(MPI_Type_set_attr(vec, kdup, (void *)6));
    CHECK_OK(MPI_Type_set_attr(vec, knull, (void *)7));

    type_copies = type_deletes = 0;
    CHECK_OK(MPI_Type_dup(vec, &dup));
    CHECK(type_copies == 1, "%d type copies", type_copies);
    CHECK_OK(MPI_Type_get_attr(dup, kt, &v, &flag));
    CHECK(flag && v == (void *)10, "dup: copy callback value %p", v);
    CHECK_OK(MPI_Type_get_attr(dup, kdup, &v, &flag));
    CHECK(flag && v == (void *)6, "dup: MPI_TYPE_DUP_FN value %p", v);
    CHECK_OK(MPI_Type_get_attr(dup, knull, &v, &flag));
    CHECK(!flag, "dup: MPI_TYPE_NULL_COPY_FN copied");

    CHECK_OK(MPI_Type_delete_attr(dup, kt));
    CHECK(type_deletes == 1 && type_deleted_from == dup, "type delete_attr");
    MPI_Datatype saved = dup;
    CHECK_OK(MPI_Type_free(&dup));
    CHECK(type_deletes == 1, "free ran a callback for a deleted attribute");
    (void)saved;

    /* A delete error fails MPI_Type_free; the type stays usable. */
    CHECK_OK(MPI_Type_dup(vec, &dup2));
    bomb_code = MPI_ERR_OTHER;
    type_deletes = 0;
    CHECK_CLASS(MPI_Type_free(&dup2), MPI_ERR_OTHER);
    CHECK(dup2 != MPI_DATATYPE_NULL, "failed free nulled the handle");
    int size;
    CHECK_OK(MPI_Type_size(dup2, &size));
    CHECK(size == 3 * (int)sizeof(int), "type size %d after failed free", size);
    bomb_code = MPI_SUCCESS;
    type_deletes = 0;
    CHECK_OK(MPI_Type_free(&dup2));
    CHECK(type_deletes == 1 && type_deleted_from != MPI_DATATYPE_NULL, "type free: %d deletes", type_deletes);

    type_deletes = 0;
    CHECK_OK(MPI_Type_free(&vec));
    CHECK(type_deletes == 2, "vec free: %d deletes, want 2", type_deletes);

    /* Predefined types carry attributes too. */
    CHECK_OK(MPI_Type_set_attr(MPI_INT, kdup, (void *)9));
    CHECK_OK(MPI_Type_dup(MPI_INT, &dup));
    CHECK_OK(MPI_Type_get_attr(dup, kdup, &v, &flag));
    CHECK(flag && v == (void *)9, "dup of MPI_INT: attribute %p", v);
    CHECK_OK(MPI_Type_free(&dup));
    CHECK_OK(MPI_Type_delete_attr(MPI_INT, kdup));
    CHECK_OK(MPI_Type_get_attr(MPI_INT, kdup, &v, &flag));
    CHECK(!flag, "MPI_INT attribute not deleted");

    /* Wrong kinds. */
    CHECK_CLASS(MPI_Type_set_attr(MPI_INT, kcomm, (void *)1), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_get_attr(MPI_INT, kcomm, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_get_attr(MPI_INT, MPI_TAG_UB, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, kt, (void *)1), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, kt, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, kt), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_delete_attr(MPI_INT, kcomm), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_free_keyval(&kt), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_free_keyval(&kcomm), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Type_set_attr(MPI_DATATYPE_NULL, kt, (void *)1), MPI_ERR_TYPE);

    CHECK_OK(MPI_Type_free_keyval(&kt));
    CHECK(kt == MPI_KEYVAL_INVALID, "type keyval not invalidated");
    CHECK_CLASS(MPI_Type_free_keyval(&kt), MPI_ERR_KEYVAL);
    CHECK_OK(MPI_Type_free_keyval(&kdup));
    CHECK_OK(MPI_Type_free_keyval(&knull));
    CHECK_OK(MPI_Comm_free_keyval(&kcomm));
}

/* The MPI-1 names. */
static void test_mpi1(void)
{
    int kdup, knull, flag;
    void *v;
    MPI_Comm dup;

    CHECK_OK(MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &kdup, NULL));
    CHECK_OK(MPI_Keyval_create(MPI_NULL_COPY_FN, del_log, &knull, NULL));
    CHECK_OK(MPI_Attr_put(MPI_COMM_WORLD, kdup, (void *)77));
    CHECK_OK(MPI_Attr_put(MPI_COMM_WORLD, knull, (void *)88));
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, kdup, &v, &flag));
    CHECK(flag && v == (void *)77, "Attr_get %p", v);
    /* MPI-1 and MPI-2 names share communicator keyvals. */
    CHECK(getv(MPI_COMM_WORLD, knull, &flag) == (void *)88 && flag, "Comm_get_attr of Attr_put");
    CHECK_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CHECK_OK(MPI_Attr_get(dup, kdup, &v, &flag));
    CHECK(flag && v == (void *)77, "MPI_DUP_FN copy %p", v);
    CHECK_OK(MPI_Attr_get(dup, knull, &v, &flag));
    CHECK(!flag, "MPI_NULL_COPY_FN copied");
    CHECK_OK(MPI_Comm_free(&dup));
    nevents = 0;
    CHECK_OK(MPI_Attr_delete(MPI_COMM_WORLD, knull));
    CHECK(nevents == 1 && events[0].val == 88 && events[0].comm == MPI_COMM_WORLD, "Attr_delete callback");
    CHECK_OK(MPI_Attr_get(MPI_COMM_WORLD, knull, &v, &flag));
    CHECK(!flag, "Attr_delete left the attribute");
    CHECK_OK(MPI_Attr_delete(MPI_COMM_WORLD, kdup));
    CHECK_OK(MPI_Keyval_free(&kdup));
    CHECK(kdup == MPI_KEYVAL_INVALID, "Keyval_free did not invalidate");
    CHECK_OK(MPI_Keyval_free(&knull));
    CHECK_CLASS(MPI_Keyval_free(&knull), MPI_ERR_KEYVAL);
}

static void test_errors(void)
{
    int key, flag;
    void *v;
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v, &flag), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_KEYVAL_INVALID, &v), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_delete_attr(MPI_COMM_WORLD, 12345), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, (int)MPI_COMM_WORLD, &v, &flag), MPI_ERR_KEYVAL);
    key = MPI_KEYVAL_INVALID;
    CHECK_CLASS(MPI_Comm_free_keyval(&key), MPI_ERR_KEYVAL);
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, NULL, &flag), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, NULL, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Comm_set_attr(MPI_COMM_NULL, MPI_TAG_UB, &v), MPI_ERR_COMM);
}

/* MPI_Finalize: MPI_COMM_SELF's attributes go first, newest first, then MPI_COMM_WORLD's,
 * with MPI still usable. */
static int fin_order[4], fin_n, fin_mpi_ok;
static int fin_del(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)keyval, (void)extra;
    int finalized = 1, size = 0;
    MPI_Finalized(&finalized);
    if (!finalized && MPI_Comm_size(comm, &size) == MPI_SUCCESS && size > 0)
        fin_mpi_ok++;
    if (fin_n < 4)
        fin_order[fin_n] = (int)(intptr_t)val;
    fin_n++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size;
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    test_predefined(size);
    test_copy_delete();
    test_freed_keyval();
    test_callback_errors();
    test_types();
    test_mpi1();
    test_errors();

    int kself, kworld;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fin_del, &kself, NULL));
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, fin_del, &kworld, NULL));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, kworld, (void *)3));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kself, (void *)1));
    CHECK_OK(MPI_Comm_set_attr(MPI_COMM_SELF, kworld, (void *)2));
    CHECK_OK(MPI_Comm_free_keyval(&kself)); /* still runs at finalize */
    CHECK(fin_n == 0, "finalize callbacks ran early");

    CHECK_OK(MPI_Finalize());
    CHECK(fin_n == 3, "%d delete callbacks at MPI_Finalize, want 3", fin_n);
    CHECK(fin_order[0] == 2 && fin_order[1] == 1 && fin_order[2] == 3,
          "finalize order %d %d %d, want 2 1 3", fin_order[0], fin_order[1], fin_order[2]);
    CHECK(fin_mpi_ok == 3, "MPI unusable in %d finalize callbacks", 3 - fin_mpi_ok);
    if (rank == 0)
        printf("attr: OK on %d processes\n", size);
    return 0;
}

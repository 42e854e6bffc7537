/* win_attr: what a window carries besides memory, on every window kind.
 *   - attributes: MPI_Win_create_keyval with copy and delete callbacks (extra_state
 *     passed back; the delete callback runs on MPI_Win_delete_attr, when a value is
 *     replaced, and on MPI_Win_free with the window being freed; the copy callback
 *     never runs, since windows are not duplicated), MPI_Win_set_attr / get_attr /
 *     delete_attr, MPI_Win_free_keyval with the attribute still set, the predefined
 *     MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN and MPI_WIN_DUP_FN, attributes
 *     private to each window;
 *   - error handlers: MPI_ERRORS_ARE_FATAL by default, MPI_Win_create_errhandler,
 *     set/get_errhandler, MPI_Win_call_errhandler (the handler gets the window handle
 *     and the code, the call returns MPI_SUCCESS), a real error raised on the window
 *     (its class reaches the handler, the call returns the code), a handler freed while
 *     attached, MPI_ERRORS_RETURN and MPI_ERRORS_ABORT;
 *   - info: creation with every key the standard defines for windows (no_locks,
 *     accumulate_ordering, accumulate_ops, same_size, same_disp_unit,
 *     alloc_shared_noncontig, mpi_accumulate_granularity), MPI_Win_get_info returning a
 *     valid info object (every key readable), MPI_Win_set_info, the creation info freed
 *     at once. With MPIX_RMA_STRICT_INFO=1 also: MPI_Win_get_info reports the values
 *     given at creation for accumulate_ordering ("none"), accumulate_ops
 *     ("same_op_no_op") and no_locks ("true"), which an implementation may otherwise
 *     ignore. */
#include <stdarg.h>
#include "rma_util.h"

static long nchecks;
static int rank, nproc;

/* what the callbacks saw */
static int copies, deletes;
static long del_sum; /* the sum of the values deleted */
static MPI_Win del_win;
static int del_key;
static void *del_val, *del_extra;

static int copy_fn(MPI_Win oldwin, int key, void *extra, void *in, void *out, int *flag)
{
    (void)oldwin, (void)key, (void)extra, (void)in, (void)out;
    copies++;
    *flag = 0;
    return MPI_SUCCESS;
}

static int delete_fn(MPI_Win win, int key, void *val, void *extra)
{
    deletes++;
    del_sum += (long)(intptr_t)val;
    del_win = win;
    del_key = key;
    del_val = val;
    del_extra = extra;
    return MPI_SUCCESS;
}

static int handled;
static MPI_Win eh_win;
static int eh_code;

static void win_handler(MPI_Win *win, int *code, ...)
{
    handled++;
    eh_win = *win;
    eh_code = *code;
}

static void *V(long v) { return (void *)(intptr_t)v; }

static void test_attrs(rma_win *w)
{
    const char *what = rma_kind_name[w->kind];
    MPI_Win win = w->win;
    static int extra1, extra2;
    int k1, k2, k3, k4, flag;
    void *val;
    CHECK_OK(MPI_Win_create_keyval(copy_fn, delete_fn, &k1, &extra1));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, delete_fn, &k2, &extra2));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &k3, NULL));
    CHECK_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &k4, NULL));
    CHECK(k1 != k2 && k2 != k3 && k3 != k4 && k1 != k3, "%s: keyvals %d %d %d %d are not distinct", what, k1, k2, k3, k4);

    /* not set yet */
    CHECK_OK(MPI_Win_get_attr(win, k1, &val, &flag));
    CHECK(flag == 0, "%s: an attribute never set is found", what);
    deletes = copies = 0;
    CHECK_OK(MPI_Win_set_attr(win, k1, V(101)));
    CHECK_OK(MPI_Win_set_attr(win, k2, V(202)));
    CHECK_OK(MPI_Win_set_attr(win, k3, V(303)));
    CHECK_OK(MPI_Win_set_attr(win, k4, V(404)));
    CHECK(deletes == 0, "%s: setting new attributes ran %d delete callbacks", what, deletes);
    CHECK_OK(MPI_Win_get_attr(win, k1, &val, &flag));
    CHECK(flag && val == V(101), "%s: get_attr gave %d %p, want 101", what, flag, val);
    CHECK_OK(MPI_Win_get_attr(win, k3, &val, &flag));
    CHECK(flag && val == V(303), "%s: get_attr (MPI_WIN_DUP_FN key) gave %d %p", what, flag, val);
    /* the predefined attributes are untouched */
    int *model;
    CHECK_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag));
    CHECK(flag && *model == MPI_WIN_UNIFIED, "%s: MPI_WIN_MODEL lost among user attributes", what);

    /* replacing a value deletes the old one */
    CHECK_OK(MPI_Win_set_attr(win, k1, V(111)));
    CHECK(deletes == 1 && del_win == win && del_key == k1 && del_val == V(101) && del_extra == &extra1,
          "%s: replacing an attribute: %d deletes, win %#x key %d value %p extra %p", what, deletes, (unsigned)del_win,
          del_key, del_val, del_extra);
    CHECK_OK(MPI_Win_get_attr(win, k1, &val, &flag));
    CHECK(flag && val == V(111), "%s: the replaced attribute reads %p", what, val);

    /* delete_attr runs the callback and removes the value */
    CHECK_OK(MPI_Win_delete_attr(win, k2));
    CHECK(deletes == 2 && del_win == win && del_key == k2 && del_val == V(202) && del_extra == &extra2,
          "%s: MPI_Win_delete_attr: %d deletes, key %d value %p", what, deletes, del_key, del_val);
    CHECK_OK(MPI_Win_get_attr(win, k2, &val, &flag));
    CHECK(flag == 0, "%s: a deleted attribute is still found", what);
    CHECK_OK(MPI_Win_delete_attr(win, k4));
    CHECK(deletes == 2, "%s: MPI_WIN_NULL_DELETE_FN ran the user's callback", what);
    CHECK_OK(MPI_Win_set_attr(win, k2, V(222)));

    /* attributes belong to one window */
    MPI_Win other;
    int dummy[2];
    CHECK_OK(MPI_Win_create(dummy, sizeof dummy, 1, MPI_INFO_NULL, w->comm, &other));
    CHECK_OK(MPI_Win_get_attr(other, k1, &val, &flag));
    CHECK(flag == 0, "%s: an attribute of one window is found on another", what);
    CHECK_OK(MPI_Win_set_attr(other, k1, V(999)));
    CHECK_OK(MPI_Win_get_attr(win, k1, &val, &flag));
    CHECK(flag && val == V(111), "%s: setting it on another window changed it to %p", what, val);
    deletes = 0;
    MPI_Win other_handle = other;
    CHECK_OK(MPI_Win_free(&other));
    CHECK(deletes == 1 && del_win == other_handle && del_val == V(999),
          "%s: freeing the other window: %d deletes, value %p", what, deletes, del_val);

    /* keyvals freed while their attributes are set: the attributes live on, and
     * their delete callbacks still run at MPI_Win_free (the caller checks) */
    CHECK_OK(MPI_Win_free_keyval(&k1));
    CHECK(k1 == MPI_KEYVAL_INVALID, "%s: MPI_Win_free_keyval left %d", what, k1);
    CHECK_OK(MPI_Win_free_keyval(&k2));
    CHECK_OK(MPI_Win_free_keyval(&k3));
    CHECK_OK(MPI_Win_free_keyval(&k4));
    CHECK(copies == 0, "%s: the copy callback ran %d times (windows are never duplicated)", what, copies);
    nchecks += 16;
}

static void test_errhandlers(rma_win *w)
{
    const char *what = rma_kind_name[w->kind];
    MPI_Win win = w->win;
    MPI_Errhandler eh, got;
    CHECK_OK(MPI_Win_get_errhandler(win, &got));
    CHECK(got == MPI_ERRORS_ARE_FATAL, "%s: a new window's error handler is %#x, want MPI_ERRORS_ARE_FATAL", what,
          (unsigned)got);
    CHECK_OK(MPI_Errhandler_free(&got));
    CHECK_OK(MPI_Win_create_errhandler(win_handler, &eh));
    CHECK_OK(MPI_Win_set_errhandler(win, eh));
    CHECK_OK(MPI_Win_get_errhandler(win, &got));
    CHECK(got == eh, "%s: MPI_Win_get_errhandler gave %#x, set %#x", what, (unsigned)got, (unsigned)eh);
    CHECK_OK(MPI_Errhandler_free(&got));
    /* freed while attached: still the window's handler */
    CHECK_OK(MPI_Errhandler_free(&eh));
    CHECK(eh == MPI_ERRHANDLER_NULL, "%s: MPI_Errhandler_free left %#x", what, (unsigned)eh);

    /* MPI_Win_call_errhandler with a predefined code and with a user code */
    int cls, code;
    CHECK_OK(MPI_Add_error_class(&cls));
    CHECK_OK(MPI_Add_error_code(cls, &code));
    handled = 0;
    CHECK_OK(MPI_Win_call_errhandler(win, MPI_ERR_RMA_SYNC));
    CHECK(handled == 1 && eh_win == win && eh_code == MPI_ERR_RMA_SYNC,
          "%s: MPI_Win_call_errhandler: handler ran %d times with win %#x code %d", what, handled, (unsigned)eh_win,
          eh_code);
    CHECK_OK(MPI_Win_call_errhandler(win, code));
    CHECK(handled == 2 && eh_win == win && eh_code == code, "%s: call_errhandler with a user code gave %d", what, eh_code);

    /* a real error on the window reaches the handler, and the call returns its code */
    handled = 0;
    int rc = MPI_Win_lock(12345, (w->rank + 1) % w->nproc, 0, win);
    int rcls = -1;
    MPI_Error_class(rc, &rcls);
    /* MPI_ERR_LOCKTYPE; MPICH 4.0.2 says MPI_ERR_ARG (accepted unless MPIX_RMA_STRICT=1) */
    CHECK(rc != MPI_SUCCESS && (rcls == MPI_ERR_LOCKTYPE || (!rma_strict() && rcls == MPI_ERR_ARG)),
          "%s: a bad lock type returned class %d", what, rcls);
    CHECK(handled == 1 && eh_win == win && eh_code == rc, "%s: the bad lock type ran the handler %d times (code %d, rc %d)",
          what, handled, eh_code, rc);

    /* predefined handlers */
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    CHECK_OK(MPI_Win_get_errhandler(win, &got));
    CHECK(got == MPI_ERRORS_RETURN, "%s: get_errhandler after setting MPI_ERRORS_RETURN gave %#x", what, (unsigned)got);
    CHECK_OK(MPI_Errhandler_free(&got));
    handled = 0;
    CHECK_CLASS_MPICH(MPI_Win_lock(12345, 0, 0, win), MPI_ERR_LOCKTYPE, MPI_ERR_ARG);
    CHECK(handled == 0, "%s: the user handler ran after MPI_ERRORS_RETURN was set", what);
    CHECK_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER)); /* returns: MPI_SUCCESS */
    if (rma_strict()) {
        /* MPI-4's MPI_ERRORS_ABORT on a window: MPICH 4.0.2 fails an internal assertion
         * in MPI_Win_set_errhandler (win_set_errhandler.c:53), so MPIX_RMA_STRICT=1 only */
        CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_ABORT));
        CHECK_OK(MPI_Win_get_errhandler(win, &got));
        CHECK(got == MPI_ERRORS_ABORT, "%s: get_errhandler after setting MPI_ERRORS_ABORT gave %#x", what, (unsigned)got);
        CHECK_OK(MPI_Errhandler_free(&got));
    }
    CHECK_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    nchecks += 12;
}

/* check_info_valid reads every key of info (it must be a usable info object). */
static void check_info_valid(MPI_Info info, const char *what)
{
    int nkeys = -1;
    CHECK(info != MPI_INFO_NULL, "%s: MPI_Win_get_info returned MPI_INFO_NULL", what);
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys >= 0, "%s: %d keys", what, nkeys);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int len = sizeof val, flag = 0;
        CHECK_OK(MPI_Info_get_nthkey(info, i, key));
        CHECK_OK(MPI_Info_get_string(info, key, &len, val, &flag));
        CHECK(flag, "%s: key %d (%s) of the window's info has no value", what, i, key);
    }
    /* the returned object is the caller's: it can be changed and freed */
    CHECK_OK(MPI_Info_set(info, "mpix_test_key", "1"));
    nchecks++;
}

static void info_value(MPI_Info info, const char *key, const char *want, const char *what)
{
    char val[MPI_MAX_INFO_VAL + 1];
    int len = sizeof val, flag = 0;
    CHECK_OK(MPI_Info_get_string(info, key, &len, val, &flag));
    CHECK(flag && strcmp(val, want) == 0, "%s: MPI_Win_get_info reports %s=%s, created with %s", what, key,
          flag ? val : "(unset)", want);
    nchecks++;
}

static void test_info(int kind)
{
    const char *what = rma_kind_name[kind];
    MPI_Info info, used;
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "no_locks", "false"));
    CHECK_OK(MPI_Info_set(info, "accumulate_ordering", "rar,war,raw,waw"));
    CHECK_OK(MPI_Info_set(info, "accumulate_ops", "same_op"));
    CHECK_OK(MPI_Info_set(info, "same_size", "true"));
    CHECK_OK(MPI_Info_set(info, "same_disp_unit", "true"));
    CHECK_OK(MPI_Info_set(info, "alloc_shared_noncontig", kind == RMA_SHARED ? "true" : "false"));
    CHECK_OK(MPI_Info_set(info, "mpi_accumulate_granularity", "8"));
    rma_win w;
    rma_open(&w, kind, 256, 1, info, MPI_COMM_WORLD);
    CHECK_OK(MPI_Info_free(&info)); /* the window does not depend on it */
    CHECK_OK(MPI_Win_get_info(w.win, &used));
    check_info_valid(used, what);
    CHECK_OK(MPI_Info_free(&used));
    /* the window works as usual */
    int one = 1, right = (rank + 1) % nproc;
    CHECK_OK(MPI_Win_lock_all(0, w.win));
    CHECK_OK(MPI_Accumulate(&one, 1, MPI_INT, right, rma_disp(&w, right, 0), 1, MPI_INT, MPI_SUM, w.win));
    CHECK_OK(MPI_Win_unlock_all(w.win));

    /* MPI_Win_set_info, then get_info again */
    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_set(info, "accumulate_ordering", "none"));
    CHECK_OK(MPI_Info_set(info, "mpi_accumulate_granularity", "64"));
    CHECK_OK(MPI_Info_set(info, "mpix_unknown_key", "whatever"));
    CHECK_OK(MPI_Win_set_info(w.win, info));
    CHECK_OK(MPI_Info_free(&info));
    CHECK_OK(MPI_Win_get_info(w.win, &used));
    check_info_valid(used, what);
    CHECK_OK(MPI_Info_free(&used));
    rma_close(&w);

    if (rma_strict_info()) {
        /* the values given at creation are reported back */
        CHECK_OK(MPI_Info_create(&info));
        CHECK_OK(MPI_Info_set(info, "accumulate_ordering", "none"));
        CHECK_OK(MPI_Info_set(info, "accumulate_ops", "same_op_no_op"));
        CHECK_OK(MPI_Info_set(info, "no_locks", "true"));
        rma_open(&w, kind, 256, 1, info, MPI_COMM_WORLD);
        CHECK_OK(MPI_Info_free(&info));
        CHECK_OK(MPI_Win_get_info(w.win, &used));
        info_value(used, "accumulate_ordering", "none", what);
        info_value(used, "accumulate_ops", "same_op_no_op", what);
        info_value(used, "no_locks", "true", what);
        CHECK_OK(MPI_Info_free(&used));
        /* no_locks: the window is used with fences only (dynamic windows are left
         * alone: rma_close's detach needs no lock) */
        CHECK_OK(MPI_Win_fence(0, w.win));
        CHECK_OK(MPI_Win_fence(0, w.win));
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
        if (rma_kind_flavor[kind] == MPI_WIN_FLAVOR_DYNAMIC && w.size > 0)
            CHECK_OK(MPI_Win_detach(w.win, w.mem));
        CHECK_OK(MPI_Win_free(&w.win));
        if (w.allocmem)
            CHECK_OK(MPI_Free_mem(w.mem));
        else
            free(w.mem);
        free(w.tbase);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (int k = 0; k < RMA_NKINDS; k++) {
        rma_win w;
        rma_open(&w, k, 1024, 4, MPI_INFO_NULL, MPI_COMM_WORLD);
        test_errhandlers(&w);
        /* k2 (delete_fn, value 222) and k1 (freed keyval, value 111) are still set:
         * MPI_Win_free runs both delete callbacks with the window being freed */
        test_attrs(&w);
        MPI_Win handle = w.win;
        deletes = 0;
        del_sum = 0;
        rma_close(&w);
        CHECK(deletes == 2 && del_win == handle && del_sum == 111 + 222,
              "%s: MPI_Win_free ran %d delete callbacks (window %#x, want %#x; values summing to %ld, want 333)",
              rma_kind_name[k], deletes, (unsigned)del_win, (unsigned)handle, del_sum);
        nchecks++;
        test_info(k);
    }
    long total;
    MPI_Reduce(&nchecks, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("win_attr: np %d, %ld checks passed%s\n", nproc, total,
               rma_strict_info() ? " (with the info values reported back)" : "");
    CHECK_OK(MPI_Finalize());
    return 0;
}

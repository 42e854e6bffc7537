/* info: MPI_Info semantics and MPI_INFO_ENV. Runs before MPI_Init too, as MPI-4 allows. */
#include "mpix_test.h"

/* exercise runs the info semantics; with_errors adds the calls that must fail, which
 * only return codes once MPI is initialized (before that, errors are fatal: the
 * initial error handler is MPI_ERRORS_ARE_FATAL). */
static void exercise(int with_errors)
{
    MPI_Info info, dup;
    int nkeys, flag, len, buflen;
    char key[MPI_MAX_INFO_KEY + 1], val[64];

    CHECK_OK(MPI_Info_create(&info));
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 0, "new info has %d keys", nkeys);
    CHECK_OK(MPI_Info_set(info, "b_key", "one"));
    CHECK_OK(MPI_Info_set(info, "a_key", "two"));
    CHECK_OK(MPI_Info_set(info, "b_key", "three")); /* replace keeps position */
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 2, "%d keys", nkeys);
    CHECK_OK(MPI_Info_get_nthkey(info, 0, key));
    CHECK(strcmp(key, "b_key") == 0, "key 0 '%s'", key);
    CHECK_OK(MPI_Info_get_nthkey(info, 1, key));
    CHECK(strcmp(key, "a_key") == 0, "key 1 '%s'", key);

    buflen = sizeof val;
    CHECK_OK(MPI_Info_get_string(info, "b_key", &buflen, val, &flag));
    CHECK(flag && strcmp(val, "three") == 0 && buflen == 6, "get_string '%s' %d", val, buflen);
    buflen = 3; /* truncated, but buflen reports the full size */
    CHECK_OK(MPI_Info_get_string(info, "b_key", &buflen, val, &flag));
    CHECK(flag && strcmp(val, "th") == 0 && buflen == 6, "truncated '%s' %d", val, buflen);
    buflen = 0;
    CHECK_OK(MPI_Info_get_string(info, "b_key", &buflen, NULL, &flag));
    CHECK(flag && buflen == 6, "size query %d", buflen);
    buflen = sizeof val;
    CHECK_OK(MPI_Info_get_string(info, "missing", &buflen, val, &flag));
    CHECK(!flag && buflen == (int)sizeof val, "missing key flag %d buflen %d", flag, buflen);
    CHECK_OK(MPI_Info_get(info, "a_key", sizeof val - 1, val, &flag));
    CHECK(flag && strcmp(val, "two") == 0, "get '%s'", val);
    CHECK_OK(MPI_Info_get_valuelen(info, "a_key", &len, &flag));
    CHECK(flag && len == 3, "valuelen %d", len);

    CHECK_OK(MPI_Info_dup(info, &dup));
    CHECK_OK(MPI_Info_delete(info, "a_key"));
    CHECK_OK(MPI_Info_get_nkeys(info, &nkeys));
    CHECK(nkeys == 1, "%d keys after delete", nkeys);
    CHECK_OK(MPI_Info_get_nkeys(dup, &nkeys));
    CHECK(nkeys == 2, "dup changed with the original: %d keys", nkeys);
    if (!with_errors) {
        CHECK_OK(MPI_Info_free(&info));
        CHECK_OK(MPI_Info_free(&dup));
        return;
    }
    CHECK_CLASS(MPI_Info_delete(info, "a_key"), MPI_ERR_INFO_NOKEY);
    CHECK_CLASS(MPI_Info_get_nthkey(dup, 2, key), MPI_ERR_ARG);

    char longkey[MPI_MAX_INFO_KEY + 2];
    memset(longkey, 'k', sizeof longkey - 1);
    longkey[sizeof longkey - 1] = 0;
    CHECK_CLASS(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY);
    CHECK_CLASS(MPI_Info_set(MPI_INFO_NULL, "k", "v"), MPI_ERR_INFO);
    CHECK_CLASS(MPI_Info_set(info, NULL, "v"), MPI_ERR_ARG);

    CHECK_OK(MPI_Info_free(&info));
    CHECK(info == MPI_INFO_NULL, "free did not null the handle");
    CHECK_OK(MPI_Info_free(&dup));
    CHECK_CLASS(MPI_Info_free(&dup), MPI_ERR_INFO);
}

int main(int argc, char **argv)
{
    exercise(0); /* MPI-4 allows the info procedures before MPI_Init */
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    exercise(1);

    int size, flag, buflen;
    char val[MPI_MAX_INFO_VAL];
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *keys[] = {"command", "maxprocs", "host", "arch", "wdir", "thread_level"};
    for (unsigned i = 0; i < sizeof keys / sizeof *keys; i++) {
        buflen = sizeof val;
        CHECK_OK(MPI_Info_get_string(MPI_INFO_ENV, keys[i], &buflen, val, &flag));
        CHECK(flag, "MPI_INFO_ENV lacks %s", keys[i]);
    }
    buflen = sizeof val;
    MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &buflen, val, &flag);
    CHECK(atoi(val) == size, "maxprocs %s, size %d", val, size);
    buflen = sizeof val;
    MPI_Info_get_string(MPI_INFO_ENV, "command", &buflen, val, &flag);
    CHECK(strstr(val, "info") != NULL, "command '%s'", val);
    CHECK_CLASS(MPI_Info_set(MPI_INFO_ENV, "k", "v"), MPI_ERR_INFO);
    MPI_Info env = MPI_INFO_ENV;
    CHECK_CLASS(MPI_Info_free(&env), MPI_ERR_INFO);

    MPI_Info created;
    char *args[] = {"prog", "a1", "a2"};
    CHECK_OK(MPI_Info_create_env(3, args, &created));
    buflen = sizeof val;
    CHECK_OK(MPI_Info_get_string(created, "argv", &buflen, val, &flag));
    CHECK(flag && strcmp(val, "a1 a2") == 0, "create_env argv '%s'", val);
    CHECK_OK(MPI_Info_free(&created));

    CHECK_OK(MPI_Finalize());
    return 0;
}

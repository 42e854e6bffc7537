/* The MPI tool information interface: control variables, categories, performance
 * variables and sessions, before MPI_Init, between MPI_Init and MPI_Finalize, and
 * after MPI_Finalize.
 *
 * The control variables must match the environment: each knob's value is the
 * environment's when it is set (ctest runs this program once with nothing set and
 * once with -env MPIX_SPIN_POLLS 123 -env MPIX_SHM 0), its default otherwise.
 * With the argument "badenv" the program only checks that an unparsable
 * MPIX_SPIN_POLLS reads as the default through MPI_T and then calls MPI_Init, which
 * must fail (ctest checks the message). */
#include <stdint.h>
#include "mpix_test.h"

enum kind { KINT, KBOOL, KSTRING };

/* The knobs README.md documents, with their types and defaults. */
static const struct knob {
    const char *name;
    enum kind kind;
    const char *def;
    const char *category;
} knobs[] = {
    {"MPIX_SHM", KBOOL, "1", "mpix_transport"},
    {"MPIX_OFI_PROVIDER", KSTRING, "", "mpix_transport"},
    {"MPIX_SPIN_POLLS", KINT, "200", "mpix_progress"},
    {"MPIX_NUM_VCIS", KINT, "0", "mpix_vci"},
    {"MPIX_GLOBAL_PROGRESS_INTERVAL", KINT, "256", "mpix_progress"},
};
#define NKNOBS ((int)(sizeof knobs / sizeof knobs[0]))

#define CHECK_T(call, want)                                                     \
    do {                                                                        \
        int rc_ = (call);                                                       \
        CHECK(rc_ == (want), "%s returned %d, want %d", #call, rc_, (want));    \
    } while (0)

/* spin_polls_written is what the test wrote to MPIX_SPIN_POLLS before MPI_Init (-1
 * while it has not). */
static int spin_polls_written = -1;

/* expected returns the value a knob must have: the environment's, or its default. */
static const char *expected(const struct knob *k)
{
    const char *env = getenv(k->name);
    return env ? env : k->def;
}

static int parse_bool(const char *s)
{
    if (!strcmp(s, "1") || !strcmp(s, "true") || !strcmp(s, "TRUE") || !strcmp(s, "t"))
        return 1;
    CHECK(!strcmp(s, "0") || !strcmp(s, "false") || !strcmp(s, "FALSE") || !strcmp(s, "f"),
          "unexpected boolean %s in the test's environment", s);
    return 0;
}

static const struct knob *find_knob(const char *name)
{
    for (int i = 0; i < NKNOBS; i++)
        if (!strcmp(knobs[i].name, name))
            return &knobs[i];
    return NULL;
}

/* read_cvar reads a variable through a fresh handle, into an int or a string. */
static void read_cvar(int index, int *ival, char *sval, int *count_out)
{
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    int count = -1;
    CHECK_T(MPI_T_cvar_handle_alloc(index, NULL, &h, &count), MPI_SUCCESS);
    CHECK(h != MPI_T_CVAR_HANDLE_NULL, "handle_alloc returned a null handle");
    char buf[1024];
    memset(buf, 0x55, sizeof buf);
    CHECK(count >= 1 && count <= (int)sizeof buf, "count %d", count);
    CHECK_T(MPI_T_cvar_read(h, buf), MPI_SUCCESS);
    if (ival)
        memcpy(ival, buf, sizeof *ival);
    if (sval) {
        CHECK(memchr(buf, 0, count) != NULL, "string value is not terminated within %d", count);
        strcpy(sval, buf);
    }
    *count_out = count;
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle_free did not reset the handle");
}

/* check_cvars enumerates every control variable, checks its description and
 * reads it; the knobs must have their types, categories and expected values. */
static void check_cvars(const char *when)
{
    int n = -1, seen = 0;
    CHECK_T(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n >= NKNOBS, "%s: %d control variables, want at least %d", when, n, NKNOBS);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc;
        int verbosity = -1, bind = -1, scope = -1;
        MPI_Datatype dt = MPI_DATATYPE_NULL;
        MPI_T_enum et = (MPI_T_enum)&n;
        CHECK_T(MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &dt, &et, desc, &desc_len,
                                    &bind, &scope), MPI_SUCCESS);
        CHECK(name_len == (int)strlen(name) + 1 && name_len > 1, "cvar %d: name_len %d for %s", i, name_len, name);
        CHECK(desc_len == (int)strlen(desc) + 1 && desc_len > 1, "cvar %d: desc_len %d", i, desc_len);
        CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL,
              "%s: verbosity %d", name, verbosity);
        CHECK(dt == MPI_INT || dt == MPI_CHAR, "%s: datatype %#x", name, (unsigned)dt);
        CHECK(et == MPI_T_ENUM_NULL, "%s: enumtype is not MPI_T_ENUM_NULL", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT, "%s: bind %d", name, bind);
        CHECK(scope >= MPI_T_SCOPE_CONSTANT && scope <= MPI_T_SCOPE_ALL_EQ, "%s: scope %d", name, scope);
        int idx = -1;
        CHECK_T(MPI_T_cvar_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == i, "get_index(%s) = %d, want %d", name, idx, i);

        int ival = -12345, count = 0;
        char sval[1024] = "";
        read_cvar(i, dt == MPI_INT ? &ival : NULL, dt == MPI_CHAR ? sval : NULL, &count);
        CHECK(dt == MPI_INT ? count == 1 : count > 1, "%s: count %d", name, count);

        const struct knob *k = find_knob(name);
        if (!k)
            continue;
        seen++;
        CHECK((k->kind == KSTRING) == (dt == MPI_CHAR), "%s: datatype %#x", name, (unsigned)dt);
        const char *want = expected(k);
        switch (k->kind) {
        case KSTRING:
            CHECK(!strcmp(sval, want), "%s: %s reads \"%s\", want \"%s\"", when, name, sval, want);
            break;
        case KBOOL:
            CHECK(ival == parse_bool(want), "%s: %s reads %d, want %s", when, name, ival, want);
            break;
        case KINT: {
            int w = atoi(want);
            if (!strcmp(name, "MPIX_SPIN_POLLS") && spin_polls_written >= 0)
                w = spin_polls_written;
            CHECK(ival == w, "%s: %s reads %d, want %d", when, name, ival, w);
            break;
        }
        }
    }
    CHECK(seen == NKNOBS, "%s: found %d of the %d knobs", when, seen, NKNOBS);
}

/* check_strings exercises MPI_T's string conventions on cvar 0's name. */
static void check_strings(void)
{
    char full[256], small[5];
    int len = sizeof full;
    CHECK_T(MPI_T_cvar_get_info(0, full, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    int want = (int)strlen(full) + 1;
    CHECK(len == want, "name_len %d, want %d", len, want);
    /* Length only: a NULL buffer or a zero length. */
    len = 0;
    CHECK_T(MPI_T_cvar_get_info(0, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(len == want, "length query gave %d, want %d", len, want);
    len = 99;
    CHECK_T(MPI_T_cvar_get_info(0, NULL, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(len == want, "length query with NULL name gave %d, want %d", len, want);
    /* Truncation: n-1 characters and a NUL; the length is the full one. */
    len = sizeof small;
    memset(small, 'x', sizeof small);
    CHECK_T(MPI_T_cvar_get_info(0, small, &len, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(small[4] == 0 && !strncmp(small, full, 4), "truncated name \"%.5s\"", small);
    CHECK(len == want, "truncated name_len %d, want %d", len, want);
    /* A NULL length: nothing returned. */
    memset(small, 'x', sizeof small);
    CHECK_T(MPI_T_cvar_get_info(0, small, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(small[0] == 'x', "name written although name_len was NULL");
}

/* check_categories walks the category tree: every control variable is in exactly
 * one category, and the knobs in theirs. */
static void check_categories(void)
{
    int ncat = -1, ncvar = -1, npvar = -1;
    CHECK_T(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_get_num(&ncvar), MPI_SUCCESS);
    CHECK_T(MPI_T_pvar_get_num(&npvar), MPI_SUCCESS);
    CHECK(ncat >= 4, "%d categories", ncat);
    int *cvar_seen = calloc(ncvar, sizeof(int)), *pvar_seen = calloc(npvar + 1, sizeof(int));
    int *cat_parent = calloc(ncat, sizeof(int));
    for (int c = 0; c < ncat; c++) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, nc = -1, np = -1, nsub = -1;
        CHECK_T(MPI_T_category_get_info(c, name, &name_len, desc, &desc_len, &nc, &np, &nsub), MPI_SUCCESS);
        CHECK(name_len == (int)strlen(name) + 1 && desc_len == (int)strlen(desc) + 1, "category %d strings", c);
        int idx = -1;
        CHECK_T(MPI_T_category_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == c, "category_get_index(%s) = %d", name, idx);

        int list[256];
        CHECK(nc <= 256 && np <= 256 && nsub <= 256, "category %s too large", name);
        CHECK_T(MPI_T_category_get_cvars(c, nc, list), MPI_SUCCESS);
        for (int j = 0; j < nc; j++) {
            CHECK(list[j] >= 0 && list[j] < ncvar, "%s: cvar index %d", name, list[j]);
            cvar_seen[list[j]]++;
            char vname[256];
            int vlen = sizeof vname;
            CHECK_T(MPI_T_cvar_get_info(list[j], vname, &vlen, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
            const struct knob *k = find_knob(vname);
            CHECK(!k || !strcmp(k->category, name), "%s is in category %s, want %s", vname, name, k ? k->category : "");
        }
        CHECK_T(MPI_T_category_get_pvars(c, np, list), MPI_SUCCESS);
        for (int j = 0; j < np; j++) {
            CHECK(list[j] >= 0 && list[j] < npvar, "%s: pvar index %d", name, list[j]);
            pvar_seen[list[j]]++;
        }
        CHECK_T(MPI_T_category_get_categories(c, nsub, list), MPI_SUCCESS);
        for (int j = 0; j < nsub; j++) {
            CHECK(list[j] > c && list[j] < ncat, "%s: subcategory index %d", name, list[j]);
            cat_parent[list[j]]++;
        }
        /* A short list gets the first entries only. */
        if (nsub >= 2) {
            int two[2] = {-1, -1}, one[2] = {-1, -1};
            CHECK_T(MPI_T_category_get_categories(c, 2, two), MPI_SUCCESS);
            CHECK_T(MPI_T_category_get_categories(c, 1, one), MPI_SUCCESS);
            CHECK(one[0] == two[0] && one[1] == -1, "len 1 wrote %d %d", one[0], one[1]);
        }
        int nev = -1;
        CHECK_T(MPI_T_category_get_num_events(c, &nev), MPI_SUCCESS);
        CHECK(nev == 0, "%s: %d events", name, nev);
        CHECK_T(MPI_T_category_get_events(c, 0, NULL), MPI_SUCCESS);
    }
    for (int i = 0; i < ncvar; i++)
        CHECK(cvar_seen[i] == 1, "cvar %d is in %d categories", i, cvar_seen[i]);
    for (int i = 0; i < npvar; i++)
        CHECK(pvar_seen[i] == 1, "pvar %d is in %d categories", i, pvar_seen[i]);
    int roots = 0;
    for (int c = 0; c < ncat; c++) {
        CHECK(cat_parent[c] <= 1, "category %d has %d parents", c, cat_parent[c]);
        roots += cat_parent[c] == 0;
    }
    CHECK(roots == 1, "%d root categories", roots);
    free(cvar_seen);
    free(pvar_seen);
    free(cat_parent);

    /* Nothing was registered since: the stamp stays. */
    int s1 = -1, s2 = -2;
    CHECK_T(MPI_T_category_changed(&s1), MPI_SUCCESS);
    CHECK_T(MPI_T_category_changed(&s2), MPI_SUCCESS);
    CHECK(s1 == s2 && s1 > 0, "category_changed %d then %d", s1, s2);

    /* Invalid indices, names and arguments. */
    int x, list[1];
    CHECK_T(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_index("no_such_category", &x), MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_category_get_cvars(ncat, 1, list), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_pvars(-1, 1, list), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_categories(0, -1, list), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_category_get_cvars(0, 1, NULL), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_category_get_num_events(ncat, &x), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_events(ncat, 0, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_category_get_num(NULL), MPI_T_ERR_INVALID);
}

static int cvar_index(const char *name)
{
    int i = -1;
    CHECK_T(MPI_T_cvar_get_index(name, &i), MPI_SUCCESS);
    return i;
}

/* check_writes runs before MPI_Init: the knobs are writable until then. */
static void check_writes(void)
{
    MPI_T_cvar_handle h;
    int count, v;
    CHECK_T(MPI_T_cvar_handle_alloc(cvar_index("MPIX_SPIN_POLLS"), NULL, &h, &count), MPI_SUCCESS);
    v = 150;
    CHECK_T(MPI_T_cvar_write(h, &v), MPI_SUCCESS);
    spin_polls_written = 150;
    v = 0;
    CHECK_T(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    CHECK(v == 150, "MPIX_SPIN_POLLS reads %d after writing 150", v);
    v = -1; /* out of range: refused, the value stays */
    CHECK_T(MPI_T_cvar_write(h, &v), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    CHECK(v == 150, "MPIX_SPIN_POLLS reads %d after a refused write", v);
    CHECK_T(MPI_T_cvar_write(h, NULL), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_cvar_read(h, NULL), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);

    /* A boolean takes any non-zero value as 1; the old value goes back afterwards. */
    int old;
    CHECK_T(MPI_T_cvar_handle_alloc(cvar_index("MPIX_SHM"), NULL, &h, &count), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_read(h, &old), MPI_SUCCESS);
    v = 7;
    CHECK_T(MPI_T_cvar_write(h, &v), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    CHECK(v == 1, "MPIX_SHM reads %d after writing 7", v);
    CHECK_T(MPI_T_cvar_write(h, &old), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);

    /* A string, within the count, and one that does not fit. */
    char oldp[1024], buf[1024];
    CHECK_T(MPI_T_cvar_handle_alloc(cvar_index("MPIX_OFI_PROVIDER"), NULL, &h, &count), MPI_SUCCESS);
    CHECK(count > 1 && count < (int)sizeof buf, "string count %d", count);
    CHECK_T(MPI_T_cvar_read(h, oldp), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_write(h, "test;provider"), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_read(h, buf), MPI_SUCCESS);
    CHECK(!strcmp(buf, "test;provider"), "MPIX_OFI_PROVIDER reads \"%s\"", buf);
    memset(buf, 'a', sizeof buf); /* no NUL within count */
    CHECK_T(MPI_T_cvar_write(h, buf), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_cvar_write(h, oldp), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_read(h, buf), MPI_SUCCESS);
    CHECK(!strcmp(buf, oldp), "MPIX_OFI_PROVIDER reads \"%s\", want \"%s\"", buf, oldp);
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
}

/* check_frozen runs after MPI_Init: every knob is read by MPI_Init, so no write
 * can happen now, and the value stays. */
static void check_frozen(void)
{
    for (int k = 0; k < NKNOBS; k++) {
        MPI_T_cvar_handle h;
        int count;
        char before[1024], after[1024];
        CHECK_T(MPI_T_cvar_handle_alloc(cvar_index(knobs[k].name), NULL, &h, &count), MPI_SUCCESS);
        CHECK_T(MPI_T_cvar_read(h, before), MPI_SUCCESS);
        CHECK_T(MPI_T_cvar_write(h, before), MPI_T_ERR_CVAR_SET_NOT_NOW);
        CHECK_T(MPI_T_cvar_read(h, after), MPI_SUCCESS);
        CHECK(!memcmp(before, after, knobs[k].kind == KSTRING ? strlen(before) + 1 : sizeof(int)),
              "%s changed", knobs[k].name);
        CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    }
}

/* check_bad_cvar_args: invalid indices, names and handles. */
static void check_bad_cvar_args(void)
{
    int n, x, count;
    MPI_T_cvar_handle h, stale;
    CHECK_T(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_get_index("MPIX_NO_SUCH_KNOB", &x), MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_cvar_get_index(NULL, &x), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_cvar_get_num(NULL), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_cvar_handle_alloc(0, NULL, NULL, &count), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_cvar_read(MPI_T_CVAR_HANDLE_NULL, &x), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_cvar_write(MPI_T_CVAR_HANDLE_NULL, &x), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_cvar_read((MPI_T_cvar_handle)&x, &x), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_cvar_handle_alloc(0, NULL, &h, &count), MPI_SUCCESS);
    stale = h;
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    char buf[1024];
    CHECK_T(MPI_T_cvar_read(stale, buf), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_cvar_handle_free(&stale), MPI_T_ERR_INVALID_HANDLE);
    h = MPI_T_CVAR_HANDLE_NULL;
    CHECK_T(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
}

/* churn allocates and frees about 16 MB inside the library (info values are
 * copied into Go strings) when heavy, which makes the Go runtime collect garbage
 * (its smallest heap goal is 4 MB). */
static int heavy;
static void churn(void)
{
    if (!heavy)
        return;
    char value[MPI_MAX_INFO_VAL], key[32];
    memset(value, 'v', sizeof value - 1);
    value[sizeof value - 1] = 0;
    for (int i = 0; i < 1000; i++) {
        MPI_Info info;
        CHECK_OK(MPI_Info_create(&info));
        for (int k = 0; k < 16; k++) {
            snprintf(key, sizeof key, "key%d", k);
            CHECK_OK(MPI_Info_set(info, key, value));
        }
        CHECK_OK(MPI_Info_free(&info));
    }
}

static unsigned long long pread(MPI_T_pvar_session s, MPI_T_pvar_handle h)
{
    unsigned long long v = 0xdeadbeef;
    CHECK_T(MPI_T_pvar_read(s, h, &v), MPI_SUCCESS);
    return v;
}

/* check_pvars: the two runtime variables through sessions and handles. With
 * churning (the first time), the garbage collection counter must move. */
static void check_pvars(int churning)
{
    heavy = churning;
    int n = -1;
    CHECK_T(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
    CHECK(n >= 2, "%d performance variables", n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int name_len = sizeof name, desc_len = sizeof desc, verbosity, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum et;
        CHECK_T(MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &cls, &dt, &et, desc, &desc_len,
                                    &bind, &ro, &cont, &atomic), MPI_SUCCESS);
        CHECK(name_len == (int)strlen(name) + 1 && desc_len == (int)strlen(desc) + 1, "pvar %d strings", i);
        CHECK(cls >= MPI_T_PVAR_CLASS_STATE && cls <= MPI_T_PVAR_CLASS_GENERIC, "%s: class %d", name, cls);
        CHECK(dt == MPI_UNSIGNED_LONG_LONG && et == MPI_T_ENUM_NULL && bind == MPI_T_BIND_NO_OBJECT,
              "%s: datatype, enumtype or bind", name);
        CHECK(verbosity >= MPI_T_VERBOSITY_USER_BASIC && verbosity <= MPI_T_VERBOSITY_MPIDEV_ALL, "%s: verbosity", name);
        CHECK(ro == 0 || ro == 1, "%s: readonly %d", name, ro);
        int idx = -1;
        CHECK_T(MPI_T_pvar_get_index(name, cls, &idx), MPI_SUCCESS);
        CHECK(idx == i, "pvar_get_index(%s) = %d, want %d", name, idx, i);
    }
    int gc = -1, heap = -1, x;
    CHECK_T(MPI_T_pvar_get_index("mpix_gc_cycles", MPI_T_PVAR_CLASS_COUNTER, &gc), MPI_SUCCESS);
    CHECK_T(MPI_T_pvar_get_index("mpix_heap_bytes", MPI_T_PVAR_CLASS_SIZE, &heap), MPI_SUCCESS);
    CHECK_T(MPI_T_pvar_get_index("mpix_gc_cycles", MPI_T_PVAR_CLASS_TIMER, &x), MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_pvar_get_index("mpix_no_such_pvar", MPI_T_PVAR_CLASS_COUNTER, &x), MPI_T_ERR_INVALID_NAME);
    CHECK_T(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
            MPI_T_ERR_INVALID_INDEX);
    int ro, cont, atomic;
    CHECK_T(MPI_T_pvar_get_info(gc, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &ro, &cont, &atomic), MPI_SUCCESS);
    CHECK(!ro && !cont && atomic, "mpix_gc_cycles: readonly %d continuous %d atomic %d", ro, cont, atomic);
    CHECK_T(MPI_T_pvar_get_info(heap, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, &ro, &cont, &atomic), MPI_SUCCESS);
    CHECK(ro && cont && !atomic, "mpix_heap_bytes: readonly %d continuous %d atomic %d", ro, cont, atomic);

    MPI_T_pvar_session s = MPI_T_PVAR_SESSION_NULL, s2 = MPI_T_PVAR_SESSION_NULL;
    CHECK_T(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    CHECK_T(MPI_T_pvar_session_create(&s2), MPI_SUCCESS);
    CHECK(s != MPI_T_PVAR_SESSION_NULL && s2 != s, "sessions %p %p", (void *)s, (void *)s2);
    MPI_T_pvar_handle hg, hh, h2;
    int count = 0;
    CHECK_T(MPI_T_pvar_handle_alloc(s, gc, NULL, &hg, &count), MPI_SUCCESS);
    CHECK(count == 1, "gc count %d", count);
    CHECK_T(MPI_T_pvar_handle_alloc(s, heap, NULL, &hh, &count), MPI_SUCCESS);
    CHECK(count == 1, "heap count %d", count);
    CHECK_T(MPI_T_pvar_handle_alloc(s2, gc, NULL, &h2, &count), MPI_SUCCESS);

    /* A counter starts stopped at 0 and counts only while started. */
    CHECK(pread(s, hg) == 0, "a new counter handle reads %llu", pread(s, hg));
    CHECK_T(MPI_T_pvar_start(s, hg), MPI_SUCCESS);
    churn();
    unsigned long long v = pread(s, hg);
    CHECK(!heavy || v >= 1, "no garbage collection counted while 16 MB churned");
    CHECK_T(MPI_T_pvar_stop(s, hg), MPI_SUCCESS);
    v = pread(s, hg);
    churn();
    CHECK(pread(s, hg) == v, "a stopped counter moved from %llu to %llu", v, pread(s, hg));
    CHECK(pread(s2, h2) == 0, "the other session's handle was never started, reads %llu", pread(s2, h2));
    /* Write, reset and an atomic read-and-reset. */
    unsigned long long w = 1000;
    CHECK_T(MPI_T_pvar_write(s, hg, &w), MPI_SUCCESS);
    CHECK(pread(s, hg) == 1000, "counter reads %llu after writing 1000", pread(s, hg));
    CHECK_T(MPI_T_pvar_readreset(s, hg, &w), MPI_SUCCESS);
    CHECK(w == 1000 && pread(s, hg) == 0, "readreset gave %llu, then %llu", w, pread(s, hg));
    CHECK_T(MPI_T_pvar_write(s, hg, &v), MPI_SUCCESS);
    CHECK_T(MPI_T_pvar_reset(s, hg), MPI_SUCCESS);
    CHECK(pread(s, hg) == 0, "counter reads %llu after reset", pread(s, hg));

    /* A continuous read-only variable. */
    CHECK(pread(s, hh) > 0, "heap bytes read 0");
    CHECK_T(MPI_T_pvar_start(s, hh), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_T(MPI_T_pvar_stop(s, hh), MPI_T_ERR_PVAR_NO_STARTSTOP);
    CHECK_T(MPI_T_pvar_write(s, hh, &w), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_T(MPI_T_pvar_reset(s, hh), MPI_T_ERR_PVAR_NO_WRITE);
    CHECK_T(MPI_T_pvar_readreset(s, hh, &w), MPI_T_ERR_PVAR_NO_WRITE);

    /* MPI_T_PVAR_ALL_HANDLES: start, stop and reset skip what does not apply. */
    CHECK_T(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    churn();
    CHECK_T(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK(!heavy || pread(s, hg) >= 1, "ALL_HANDLES did not start the counter");
    CHECK_T(MPI_T_pvar_reset(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    CHECK(pread(s, hg) == 0, "ALL_HANDLES did not reset the counter");
    CHECK_T(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &w), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_write(s, MPI_T_PVAR_ALL_HANDLES, &w), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_readreset(s, MPI_T_PVAR_ALL_HANDLES, &w), MPI_T_ERR_INVALID_HANDLE);

    /* Wrong sessions, handles and indices. */
    CHECK_T(MPI_T_pvar_read(s2, hg, &w), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_start(s2, hg), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_handle_free(s2, &hg), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_read(MPI_T_PVAR_SESSION_NULL, hg, &w), MPI_T_ERR_INVALID_SESSION);
    CHECK_T(MPI_T_pvar_read(s, MPI_T_PVAR_HANDLE_NULL, &w), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_read(s, hg, NULL), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_pvar_handle_alloc(s, n, NULL, &h2, &count), MPI_T_ERR_INVALID_INDEX);
    CHECK_T(MPI_T_pvar_handle_alloc(MPI_T_PVAR_SESSION_NULL, gc, NULL, &h2, &count), MPI_T_ERR_INVALID_SESSION);

    /* Freeing: a freed handle, a freed session and its handles are invalid. */
    MPI_T_pvar_handle stale = hg;
    CHECK_T(MPI_T_pvar_handle_free(s, &hg), MPI_SUCCESS);
    CHECK(hg == MPI_T_PVAR_HANDLE_NULL, "handle_free did not reset the handle");
    CHECK_T(MPI_T_pvar_read(s, stale, &w), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_pvar_handle_free(s, &stale), MPI_T_ERR_INVALID_HANDLE);
    MPI_T_pvar_session stale_s = s;
    CHECK_T(MPI_T_pvar_session_free(&s), MPI_SUCCESS);
    CHECK(s == MPI_T_PVAR_SESSION_NULL, "session_free did not reset the session");
    CHECK_T(MPI_T_pvar_read(stale_s, hh, &w), MPI_T_ERR_INVALID_SESSION);
    CHECK_T(MPI_T_pvar_session_free(&stale_s), MPI_T_ERR_INVALID_SESSION);
    CHECK(pread(s2, h2) == 0, "the other session is unaffected");
    CHECK_T(MPI_T_pvar_session_free(&s2), MPI_SUCCESS);
}

static void bad_env(void)
{
    /* MPIX_SPIN_POLLS=abc: MPI_T shows the default; MPI_Init then fails. */
    int provided;
    CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    MPI_T_cvar_handle h;
    int count, v = -1;
    CHECK_T(MPI_T_cvar_handle_alloc(cvar_index("MPIX_SPIN_POLLS"), NULL, &h, &count), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_read(h, &v), MPI_SUCCESS);
    CHECK(v == 200, "MPIX_SPIN_POLLS=%s reads %d, want the default 200", getenv("MPIX_SPIN_POLLS"), v);
    printf("mpit badenv: MPI_T reads the default\n");
    fflush(stdout);
    MPI_Init(NULL, NULL);
    printf("mpit badenv: MPI_Init did not fail\n");
    exit(1);
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "badenv"))
        bad_env();

    /* Nothing works before MPI_T_init_thread. */
    int n, provided = -1;
    CHECK_T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_init_thread(-1, &provided), MPI_T_ERR_INVALID);
    CHECK_T(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
    CHECK(provided == MPI_THREAD_MULTIPLE, "provided %d", provided);
    CHECK_T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS); /* nested */
    CHECK(provided == MPI_THREAD_SINGLE, "provided %d", provided);

    /* Before MPI_Init. */
    check_cvars("before MPI_Init");
    check_strings();
    check_categories();
    check_bad_cvar_args();
    check_writes();
    check_pvars(1);

    /* A handle that lives across MPI_Init and MPI_Finalize. */
    MPI_T_cvar_handle spin;
    int count, v = -1;
    CHECK_T(MPI_T_cvar_handle_alloc(cvar_index("MPIX_SPIN_POLLS"), NULL, &spin, &count), MPI_SUCCESS);

    CHECK_OK(MPI_Init(&argc, &argv));
    int rank;
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    check_cvars("after MPI_Init");
    check_frozen();
    check_categories();
    check_pvars(0);
    CHECK_T(MPI_T_cvar_read(spin, &v), MPI_SUCCESS);
    CHECK(v == 150, "MPIX_SPIN_POLLS reads %d in MPI", v);
    CHECK_OK(MPI_Finalize());

    /* After MPI_Finalize: MPI_T still works until its last MPI_T_finalize. */
    v = -1;
    CHECK_T(MPI_T_cvar_read(spin, &v), MPI_SUCCESS);
    CHECK(v == 150, "MPIX_SPIN_POLLS reads %d after MPI_Finalize", v);
    check_cvars("after MPI_Finalize");
    check_frozen();
    check_pvars(0);
    CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_get_num(&n), MPI_SUCCESS); /* one init is still open */
    CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_cvar_read(spin, &v), MPI_T_ERR_NOT_INITIALIZED);
    CHECK_T(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);

    /* MPI_T can start again; handles of the earlier round are gone. */
    CHECK_T(MPI_T_init_thread(MPI_THREAD_FUNNELED, &provided), MPI_SUCCESS);
    CHECK_T(MPI_T_cvar_read(spin, &v), MPI_T_ERR_INVALID_HANDLE);
    CHECK_T(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n >= NKNOBS, "%d control variables", n);
    CHECK_T(MPI_T_finalize(), MPI_SUCCESS);
    printf("mpit: rank %d ok\n", rank);
    return 0;
}

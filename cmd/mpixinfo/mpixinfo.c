/* mpixinfo prints what this mpix is and what it finds on this machine: its version,
 * how it was built, the transports it can use (shared memory, libfabric's providers,
 * RDMA devices), every control variable with its value, default and description, and
 * every performance variable. MPICH has mpichversion and mpivars, Open MPI ompi_info.
 *
 * It is a C program linked against libmpix.so (found through an rpath relative to its
 * own location, so a moved tree still works): a Go program cannot load a Go c-shared
 * library, and asking the library through MPI_T shows exactly what any MPI_T tool
 * sees. The transports come from read-only control variables of scope
 * MPI_T_SCOPE_CONSTANT that the library registers for this (mpix_transports,
 * mpix_ofi_providers, mpix_verbs_devices; capi/found.go).
 *
 * MPI_T has no "default value" query. A control variable's default is its value when
 * the environment does not set it, so mpixinfo runs itself once more with every
 * MPIX_* variable removed from the environment (--cvar-values prints name and value)
 * and reads the defaults from that run. No MPI_Init: nothing here needs a launcher. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MPIX_BUILD_GO
#define MPIX_BUILD_GO "unknown"
#endif
#ifndef MPIX_BUILD_CC
#define MPIX_BUILD_CC "unknown"
#endif
#ifndef MPIX_BUILD_FLAGS
#define MPIX_BUILD_FLAGS "unknown"
#endif

extern char **environ;

#define MAXSTR 1024

static void die(const char *what, int rc)
{
    char msg[MPI_MAX_ERROR_STRING] = "";
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "mpixinfo: %s failed: %s\n", what, msg);
    exit(1);
}

#define T(call)                       \
    do {                              \
        int rc_ = (call);             \
        if (rc_ != MPI_SUCCESS)       \
            die(#call, rc_);          \
    } while (0)

/* cvar_value reads control variable i into out as text; 0 on success. */
static int cvar_value(int i, MPI_Datatype dt, char *out, size_t n)
{
    MPI_T_cvar_handle h = MPI_T_CVAR_HANDLE_NULL;
    int count = 0;
    if (MPI_T_cvar_handle_alloc(i, NULL, &h, &count) != MPI_SUCCESS)
        return -1;
    char buf[MAXSTR] = "";
    int rc = -1;
    if (count >= 1 && (dt == MPI_CHAR ? count : (int)sizeof(int)) <= (int)sizeof buf &&
        MPI_T_cvar_read(h, buf) == MPI_SUCCESS) {
        if (dt == MPI_CHAR) {
            buf[sizeof buf - 1] = 0;
            snprintf(out, n, "\"%s\"", buf);
        } else {
            int v;
            memcpy(&v, buf, sizeof v);
            snprintf(out, n, "%d", v);
        }
        rc = 0;
    }
    MPI_T_cvar_handle_free(&h);
    return rc;
}

struct cvar {
    char name[256], desc[MAXSTR], value[MAXSTR], def[MAXSTR];
    MPI_Datatype dt;
    int scope, verbosity;
};

static struct cvar *read_cvars(int *n)
{
    T(MPI_T_cvar_get_num(n));
    struct cvar *v = calloc((size_t)*n + 1, sizeof *v);
    if (!v) {
        fprintf(stderr, "mpixinfo: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < *n; i++) {
        int nl = sizeof v[i].name, dl = sizeof v[i].desc, bind;
        MPI_T_enum et;
        T(MPI_T_cvar_get_info(i, v[i].name, &nl, &v[i].verbosity, &v[i].dt, &et, v[i].desc, &dl, &bind,
                              &v[i].scope));
        if (cvar_value(i, v[i].dt, v[i].value, sizeof v[i].value))
            snprintf(v[i].value, sizeof v[i].value, "(unreadable)");
        strcpy(v[i].def, "?");
    }
    return v;
}

/* print_values is the --cvar-values mode: one "name<TAB>value" line per setting (the
 * constant information variables are skipped: they have no default). */
static int print_values(void)
{
    int n;
    struct cvar *v = read_cvars(&n);
    for (int i = 0; i < n; i++)
        if (v[i].scope != MPI_T_SCOPE_CONSTANT)
            printf("%s\t%s\n", v[i].name, v[i].value);
    free(v);
    return 0;
}

/* read_defaults runs this program with no MPIX_* variable in its environment and
 * fills each variable's def from what that run reads. */
static void read_defaults(struct cvar *v, int n)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0)
        return;
    self[len] = 0;
    int fd[2];
    if (pipe(fd))
        return;
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        size_t ne = 0;
        while (environ[ne])
            ne++;
        char **env = calloc(ne + 1, sizeof *env);
        size_t k = 0;
        for (size_t i = 0; env && i < ne; i++)
            if (strncmp(environ[i], "MPIX_", 5))
                env[k++] = environ[i];
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        char *argv[] = {self, "--cvar-values", NULL};
        if (env)
            execve(self, argv, env);
        _exit(127);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    char line[2 * MAXSTR];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *tab = strchr(line, '\t');
        if (!tab)
            continue;
        *tab = 0;
        for (int i = 0; i < n; i++)
            if (!strcmp(v[i].name, line))
                snprintf(v[i].def, sizeof v[i].def, "%s", tab + 1);
    }
    if (f)
        fclose(f);
    else
        close(fd[0]);
    int status;
    waitpid(pid, &status, 0);
}

static const char *scope_name(int s)
{
    switch (s) {
    case MPI_T_SCOPE_CONSTANT: return "constant";
    case MPI_T_SCOPE_READONLY: return "readonly";
    case MPI_T_SCOPE_LOCAL: return "local";
    case MPI_T_SCOPE_GROUP: return "group";
    case MPI_T_SCOPE_GROUP_EQ: return "group_eq";
    case MPI_T_SCOPE_ALL: return "all";
    case MPI_T_SCOPE_ALL_EQ: return "all_eq";
    }
    return "?";
}

static const char *class_name(int c)
{
    switch (c) {
    case MPI_T_PVAR_CLASS_STATE: return "state";
    case MPI_T_PVAR_CLASS_LEVEL: return "level";
    case MPI_T_PVAR_CLASS_SIZE: return "size";
    case MPI_T_PVAR_CLASS_PERCENTAGE: return "percentage";
    case MPI_T_PVAR_CLASS_HIGHWATERMARK: return "highwatermark";
    case MPI_T_PVAR_CLASS_LOWWATERMARK: return "lowwatermark";
    case MPI_T_PVAR_CLASS_COUNTER: return "counter";
    case MPI_T_PVAR_CLASS_AGGREGATE: return "aggregate";
    case MPI_T_PVAR_CLASS_TIMER: return "timer";
    case MPI_T_PVAR_CLASS_GENERIC: return "generic";
    }
    return "?";
}

/* find returns the value of string variable name, without its quotes. */
static const char *find(struct cvar *v, int n, const char *name)
{
    static char text[MAXSTR];
    for (int i = 0; i < n; i++) {
        size_t len = strlen(v[i].value);
        if (!strcmp(v[i].name, name) && len >= 2 && v[i].value[0] == '"') {
            snprintf(text, sizeof text, "%.*s", (int)(len - 2), v[i].value + 1);
            return text;
        }
    }
    return "(not reported by this library)";
}

static void usage(FILE *f)
{
    fprintf(f, "usage: mpixinfo [-h]\n"
               "Prints this mpix's version, build configuration, the transports it finds on this\n"
               "machine, every MPI_T control variable (value, default, description) and every\n"
               "MPI_T performance variable. The MPIX_* environment sets the values shown.\n");
}

int main(int argc, char **argv)
{
    int values_only = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help") || !strcmp(argv[i], "-help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--cvar-values")) {
            values_only = 1;
        } else {
            fprintf(stderr, "mpixinfo: unknown argument %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    int provided;
    T(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided));
    if (values_only)
        return print_values();

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len, version, subversion;
    T(MPI_Get_library_version(lib, &len));
    T(MPI_Get_version(&version, &subversion));
    printf("mpix\n");
    printf("  library version:  %s\n", lib);
    printf("  MPI standard:     %d.%d\n", version, subversion);
    Dl_info dl;
    char path[PATH_MAX];
    if (dladdr((void *)MPI_T_init_thread, &dl) && dl.dli_fname && realpath(dl.dli_fname, path))
        printf("  library:          %s\n", path);
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n > 0) {
        path[n] = 0;
        char *slash = strrchr(path, '/'); /* <prefix>/bin/mpixinfo */
        if (slash) {
            *slash = 0;
            slash = strrchr(path, '/');
            if (slash)
                *slash = 0;
        }
        printf("  prefix:           %s\n", path);
    }

    printf("\nbuild\n");
    printf("  Go:               %s\n", MPIX_BUILD_GO);
    printf("  C compiler:       %s\n", MPIX_BUILD_CC);
    printf("  build flags:      %s\n", MPIX_BUILD_FLAGS);

    int ncvar;
    struct cvar *cv = read_cvars(&ncvar);
    printf("\ntransports\n");
    printf("  built in:         %s\n", find(cv, ncvar, "mpix_transports"));
    printf("  libfabric:        %s\n", find(cv, ncvar, "mpix_ofi_providers"));
    printf("  verbs devices:    %s\n", find(cv, ncvar, "mpix_verbs_devices"));
    printf("  shared memory:    %s\n", access("/dev/shm", W_OK) == 0 ? "available (/dev/shm)"
                                                                     : "unavailable (/dev/shm is not writable)");

    read_defaults(cv, ncvar);
    printf("\ncontrol variables (%d)\n", ncvar);
    for (int i = 0; i < ncvar; i++) {
        printf("  %s\n", cv[i].name);
        if (cv[i].scope == MPI_T_SCOPE_CONSTANT)
            printf("      value: %s (constant, found on this machine)\n", cv[i].value);
        else
            printf("      value: %s   default: %s   (%s, scope %s)\n", cv[i].value, cv[i].def,
                   cv[i].dt == MPI_CHAR ? "string" : "int", scope_name(cv[i].scope));
        printf("      %s\n", cv[i].desc);
    }
    free(cv);

    int npvar;
    T(MPI_T_pvar_get_num(&npvar));
    printf("\nperformance variables (%d)\n", npvar);
    for (int i = 0; i < npvar; i++) {
        char name[256], desc[MAXSTR];
        int nl = sizeof name, dl2 = sizeof desc, verbosity, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum et;
        T(MPI_T_pvar_get_info(i, name, &nl, &verbosity, &cls, &dt, &et, desc, &dl2, &bind, &ro, &cont,
                              &atomic));
        printf("  %s\n      class: %s%s%s\n      %s\n", name, class_name(cls), ro ? ", readonly" : "",
               cont ? ", continuous" : "", desc);
    }
    MPI_T_finalize();
    return 0;
}

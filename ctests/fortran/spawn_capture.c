/* f90_spawn's stand-in for the C library's spawn: defined in the test program, these
 * PMPI_Comm_spawn(_multiple) take precedence over libmpix.so's for libmpixfort.so's
 * calls, record the C arguments the Fortran wrappers made from the CHARACTER arrays as
 * text ("command|arg|arg" per command, ';' between commands, "NULL" for a null argv,
 * then "/ignore" or "/errcodes" and the maxprocs) and fail as mpix does
 * (MPI_ERR_SPAWN). spawn_seen_ hands the text to Fortran, blank-padded. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static char seen[1024];

static void add(const char *s)
{
    strncat(seen, s, sizeof seen - strlen(seen) - 1);
}

static void add_argv(char **argv)
{
    if (argv == MPI_ARGV_NULL) {
        add("|NULL");
        return;
    }
    for (; *argv != NULL; argv++) {
        add("|");
        add(*argv);
    }
}

static void add_tail(int *errcodes, const int *maxprocs, int n)
{
    char num[32];
    add(errcodes == MPI_ERRCODES_IGNORE ? "/ignore" : "/errcodes");
    for (int i = 0; i < n; i++) {
        snprintf(num, sizeof num, "/%d", maxprocs[i]);
        add(num);
    }
}

int PMPI_Comm_spawn(const char *command, char **argv, int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *intercomm, int array_of_errcodes[])
{
    (void)info, (void)root, (void)comm;
    seen[0] = 0;
    add(command);
    add_argv(argv);
    add_tail(array_of_errcodes, &maxprocs, 1);
    *intercomm = MPI_COMM_NULL;
    return MPI_ERR_SPAWN;
}

int PMPI_Comm_spawn_multiple(int count, char **commands, char **argvs[], const int maxprocs[],
                             const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    (void)infos, (void)root, (void)comm;
    seen[0] = 0;
    for (int i = 0; i < count; i++) {
        if (i > 0)
            add(";");
        add(commands[i]);
        if (argvs == MPI_ARGVS_NULL)
            add("|NULL");
        else
            add_argv(argvs[i]);
    }
    add_tail(array_of_errcodes, maxprocs, count);
    *intercomm = MPI_COMM_NULL;
    return MPI_ERR_SPAWN;
}

void spawn_seen_(char *out, size_t len)
{
    size_t n = strnlen(seen, len);
    memcpy(out, seen, n);
    memset(out + n, ' ', len - n);
}

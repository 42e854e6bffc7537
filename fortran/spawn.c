/* spawn.c -- MPI_Comm_spawn and MPI_Comm_spawn_multiple from Fortran: the argument
 * vectors are CHARACTER arrays of one length each, a command's arguments ended by a
 * blank entry (ARGV(*); ARRAY_OF_ARGV(COUNT, *), whose element (i, j) is command i's
 * argument j, column-major), which become C's NULL-terminated char * arrays;
 * MPI_ARGV_NULL, MPI_ARGVS_NULL and MPI_ERRCODES_IGNORE (mpif.h's COMMON storage)
 * become C's. */
#include <string.h>
#include "mpixf.h"

static int blank(const char *s, size_t n)
{
    while (n > 0 && s[n - 1] == ' ')
        n--;
    return n == 0;
}

static void free_argv(char **argv)
{
    if (argv == NULL)
        return;
    for (char **a = argv; *a != NULL; a++)
        free(*a);
    free(argv);
}

/* argv_f2c converts the entries at f, f + stride, f + 2 * stride... (each flen
 * characters) up to the first blank one. *ok is cleared when memory runs out. */
static char **argv_f2c(const char *f, size_t flen, size_t stride, int *ok)
{
    size_t n = 0;
    while (flen > 0 && !blank(f + n * stride, flen))
        n++;
    char **argv = calloc(n + 1, sizeof *argv);
    if (argv == NULL) {
        *ok = 0;
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        if ((argv[i] = mpixf_cstr(f + i * stride, flen)) == NULL) {
            free_argv(argv);
            *ok = 0;
            return NULL;
        }
    return argv;
}

static int *errcodes(MPI_Fint *e)
{
    return e == mpipriv2_.errcodes_ignore ? MPI_ERRCODES_IGNORE : e;
}

void pmpi_comm_spawn_(const char *command, const char *argv, const MPI_Fint *maxprocs, const MPI_Fint *info,
                      const MPI_Fint *root, const MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                      MPI_Fint *ierror, size_t flen_command, size_t flen_argv)
{
    int ok = 1;
    char **cargv = NULL;
    if (argv != mpiprivc_.argv_null)
        cargv = argv_f2c(argv, flen_argv, flen_argv, &ok);
    char *ccommand = mpixf_cstr(command, flen_command);
    if (!ok || ccommand == NULL) {
        free(ccommand);
        free_argv(cargv);
        *ierror = MPI_ERR_NO_MEM;
        return;
    }
    *ierror = PMPI_Comm_spawn(ccommand, cargv, *maxprocs, *info, *root, *comm, intercomm,
                              errcodes(array_of_errcodes));
    free(ccommand);
    free_argv(cargv);
}
#pragma weak mpi_comm_spawn_ = pmpi_comm_spawn_

void pmpi_comm_spawn_multiple_(const MPI_Fint *count, const char *commands, const char *argvs,
                               const MPI_Fint *maxprocs, const MPI_Fint *infos, const MPI_Fint *root,
                               const MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
                               MPI_Fint *ierror, size_t flen_commands, size_t flen_argvs)
{
    int n = *count > 0 ? *count : 0, ok = 1;
    char **ccommands = calloc((size_t)n + 1, sizeof *ccommands);
    char ***cargvs = NULL;
    if (argvs != mpiprivc_.argvs_null)
        cargvs = calloc((size_t)n + 1, sizeof *cargvs);
    ok = ccommands != NULL && (argvs == mpiprivc_.argvs_null || cargvs != NULL);
    for (int i = 0; ok && i < n; i++) {
        ok = (ccommands[i] = mpixf_cstr(commands + (size_t)i * flen_commands, flen_commands)) != NULL;
        if (ok && cargvs != NULL)
            cargvs[i] = argv_f2c(argvs + (size_t)i * flen_argvs, flen_argvs, (size_t)n * flen_argvs, &ok);
    }
    if (ok)
        *ierror = PMPI_Comm_spawn_multiple(*count, ccommands, cargvs, maxprocs, infos, *root, *comm, intercomm,
                                           errcodes(array_of_errcodes));
    else
        *ierror = MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++) {
        if (ccommands != NULL)
            free(ccommands[i]);
        if (cargvs != NULL)
            free_argv(cargvs[i]);
    }
    free(ccommands);
    free(cargvs);
}
#pragma weak mpi_comm_spawn_multiple_ = pmpi_comm_spawn_multiple_

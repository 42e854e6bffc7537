/* abi_app: built with MPICH's mpicc against MPICH's mpi.h, run on mpix. It uses the
 * ABI's constants (handles, error classes, info, errhandlers, status size) and
 * reports the library that actually runs it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

static int calls;
static void handler(MPI_Comm *comm, int *code, ...) { (void)comm; (void)code; calls++; }

int main(int argc, char **argv)
{
    int rank, size, len, cls, flag, buflen;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING], val[MPI_MAX_INFO_VAL];
    MPI_Errhandler eh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(lib, &len);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Error_class(MPI_Comm_rank(MPI_COMM_NULL, &rank), &cls);
    if (cls != MPI_ERR_COMM) { printf("abi-fail: class %d\n", cls); return 1; }
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
    MPI_Comm_call_errhandler(MPI_COMM_SELF, MPI_ERR_OTHER);
    if (calls != 1) { printf("abi-fail: handler calls %d\n", calls); return 1; }
    buflen = sizeof val;
    MPI_Info_get_string(MPI_INFO_ENV, "maxprocs", &buflen, val, &flag);
    if (!flag || atoi(val) != size) { printf("abi-fail: maxprocs\n"); return 1; }
    if (sizeof(MPI_Status) != 20) { printf("abi-fail: status size\n"); return 1; }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("abi-ok rank %d of %d: %s\n", rank, size, lib);
    MPI_Finalize();
    return 0;
}

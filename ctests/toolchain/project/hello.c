/* The small project every build system in ctests/toolchain builds: each rank says
 * which MPI library it runs on and the job checks that it is mpix, with the world it
 * expects (argv[1] processes), and that a message goes round. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(lib, &len);
    int want = argc > 1 ? atoi(argv[1]) : size;
    if (strncmp(lib, "mpix ", 5) || size != want) {
        fprintf(stderr, "rank %d of %d (want %d) runs on \"%s\", not mpix\n", rank, size, want, lib);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int token = rank, from = (rank + size - 1) % size;
    MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, from, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (token != from) {
        fprintf(stderr, "rank %d got %d, want %d\n", rank, token, from);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    printf("toolchain-ok C rank %d of %d: %s\n", rank, size, lib);
    MPI_Finalize();
    return 0;
}

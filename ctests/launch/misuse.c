/* misuse: programs that go wrong in one way each, for the launcher and error-path
 * tests (launch/CMakeLists.txt checks exit status, message and timing).
 * Usage: misuse MODE, where MODE is one of
 *   abort          rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7); others wait in MPI_Finalize
 *   fatal          rank 1 passes NULL for an output under the default MPI_ERRORS_ARE_FATAL
 *   errors-abort   the same under MPI_ERRORS_ABORT
 *   before-init    calls MPI_Comm_rank before MPI_Init
 *   after-finalize calls MPI_Comm_rank after MPI_Finalize
 *   segv           rank 1 dies of SIGSEGV
 *   exit           rank 1 exits with status 3 without MPI_Finalize
 *   nofinalize     rank 1 returns 0 from main without MPI_Finalize
 *   hang           rank 1 sleeps forever (for -timeout) */
#include <signal.h>
#include <unistd.h>
#include "mpix_test.h"

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank = -1, size;

    if (strcmp(mode, "before-init") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        printf("unreachable: MPI_Comm_rank before MPI_Init returned\n");
        return 0;
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("rank %d started\n", rank);
    fflush(stdout);
    if (rank == 1 || size == 1) {
        if (strcmp(mode, "abort") == 0) {
            MPI_Abort(MPI_COMM_WORLD, 7);
        } else if (strcmp(mode, "fatal") == 0) {
            MPI_Comm_size(MPI_COMM_WORLD, NULL);
        } else if (strcmp(mode, "errors-abort") == 0) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
            MPI_Comm_rank(MPI_COMM_NULL, &rank);
        } else if (strcmp(mode, "segv") == 0) {
            raise(SIGSEGV);
        } else if (strcmp(mode, "exit") == 0) {
            exit(3);
        } else if (strcmp(mode, "nofinalize") == 0) {
            return 0;
        } else if (strcmp(mode, "hang") == 0) {
            for (;;)
                pause();
        }
    }
    MPI_Finalize();
    if (strcmp(mode, "after-finalize") == 0) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        printf("unreachable: MPI_Comm_rank after MPI_Finalize returned\n");
    }
    return 0;
}

/* fatal: bad input under the default error handler (MPI_ERRORS_ARE_FATAL) ends the
 * job with one line naming the call the program made; CMakeLists.txt checks the
 * lines, the exit status and that no Go runtime dump appears. Modes (argv[1]):
 *   truncate  rank 1 receives 1 int of a 2-int message: MPI_Recv (not MPI_Wait)
 *   nullbuf   rank 1 sends 10 ints from NULL: MPI_Send, MPI_ERR_BUFFER
 *   segv      rank 1 dereferences NULL after MPI_Init, outside any MPI call: a plain
 *             segfault (signal 11), whatever libfabric's providers installed
 *   fault-c   rank 1 sends a small message from unmapped memory (shm's C fast path)
 *   fault-go  rank 1 broadcasts from unmapped memory (Go's collective path)
 *   own-segv  the program installs its own SIGSEGV handler before MPI_Init, then
 *             rank 1 does fault-c: the program's handler, not the library's, runs
 * Run with 2 processes. */
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>
#include "mpix_test.h"

/* unmapped returns an address with nothing mapped behind it. */
static void *unmapped(size_t n)
{
    void *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED, "mmap");
    munmap(p, n);
    return p;
}

/* own_segv is the program's own SIGSEGV handler of mode own-segv. */
static void own_segv(int sig)
{
    static const char line[] = "fatal: the program's own SIGSEGV handler\n";
    (void)sig;
    if (write(2, line, sizeof line - 1) < 0) {
        /* nothing more to do */
    }
    _exit(3);
}

int main(int argc, char **argv)
{
    int rank, buf[2] = {1, 2};
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "own-segv") == 0) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = own_segv;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, NULL);
        sigaction(SIGBUS, &sa, NULL);
    }
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (strcmp(mode, "truncate") == 0) {
        if (rank == 0)
            MPI_Send(buf, 2, MPI_INT, 1, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (strcmp(mode, "nullbuf") == 0) {
        if (rank == 1)
            MPI_Send(NULL, 10, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (strcmp(mode, "segv") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 1)
            *(volatile int *)(uintptr_t)argc = 0; /* address 1 or 2: unmapped */
    } else if (strcmp(mode, "fault-c") == 0 || strcmp(mode, "own-segv") == 0) {
        if (rank == 1)
            MPI_Send(unmapped(4096), 64, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    } else if (strcmp(mode, "fault-go") == 0) {
        if (rank == 1)
            MPI_Bcast(unmapped(1 << 20), 1 << 20, MPI_BYTE, 1, MPI_COMM_WORLD);
        else
            MPI_Bcast(malloc(1 << 20), 1 << 20, MPI_BYTE, 1, MPI_COMM_WORLD);
    } else {
        fprintf(stderr, "fatal: unknown mode '%s'\n", mode);
        return 2;
    }
    MPI_Barrier(MPI_COMM_WORLD); /* the failing rank never gets here */
    MPI_Finalize();
    printf("fatal: %s did not fail\n", mode);
    return 0;
}

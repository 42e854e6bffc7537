/* launchapp: an MPI program for the launcher's Hydra options (launch/CMakeLists.txt).
 * Built twice, as launchapp_a and launchapp_b (ROLE "a" or "b"), for MPMD jobs.
 * Usage: launchapp MODE, where MODE is one of
 *   world      print "launchapp ROLE rank R of N sum S" (S: an allreduce of the
 *              ranks, so every section is one MPI_COMM_WORLD); rank 0 prints the
 *              role of each rank as it gathers them, and MPIX_LOCAL_SIZE
 *   affinity   print how many CPUs this rank may run on, after MPI_Init; rank 0
 *              checks that no two ranks share a CPU (exits 77 where fewer CPUs are
 *              online than ranks)
 *   stdin      rank 0 reads a line from standard input and broadcasts it; every
 *              rank prints it
 *   signal     catch SIGUSR1, write DIR/ready.R (DIR: argv[2]), wait for the signal
 *              (30 s at most), print it, and meet the others in a barrier */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <unistd.h>
#include "mpix_test.h"

#ifndef ROLE
#define ROLE "a"
#endif

static volatile sig_atomic_t got_usr1;

static void on_usr1(int sig)
{
    (void)sig;
    got_usr1 = 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank, size;

    if (strcmp(mode, "signal") == 0) {
        /* Before MPI_Init: mpixexec may forward the signal as soon as the file exists. */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        CHECK(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
    }
    if (strcmp(mode, "affinity") == 0) {
        /* Checked before MPI_Init, in every rank alike, so that all skip or none. */
        const char *size_env = getenv("MPIX_LOCAL_SIZE");
        if (size_env && sysconf(_SC_NPROCESSORS_ONLN) < atoi(size_env)) {
            printf("SKIP: fewer CPUs than ranks\n");
            return 77;
        }
    }
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    if (strcmp(mode, "world") == 0) {
        int sum = 0;
        char roles[64] = {0};
        CHECK(size <= 64, "size %d", size);
        CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
        printf("launchapp %s rank %d of %d sum %d\n", ROLE, rank, size, sum);
        CHECK_OK(MPI_Gather(ROLE, 1, MPI_CHAR, roles, 1, MPI_CHAR, 0, MPI_COMM_WORLD));
        if (rank == 0) {
            /* mpixexec sets MPIX_LOCAL_SIZE; Hydra does not. */
            const char *local = getenv("MPIX_LOCAL_SIZE");
            printf("roles %s, local size %s\n", roles, local ? local : "unset");
        }
    } else if (strcmp(mode, "affinity") == 0) {
        cpu_set_t set, *sets = malloc(sizeof(cpu_set_t) * size);
        CHECK(sched_getaffinity(0, sizeof set, &set) == 0, "sched_getaffinity");
        printf("rank %d: %d cpus\n", rank, CPU_COUNT(&set));
        CHECK_OK(MPI_Gather(&set, sizeof set, MPI_BYTE, sets, sizeof set, MPI_BYTE, 0, MPI_COMM_WORLD));
        if (rank == 0) {
            for (int i = 0; i < size; i++)
                for (int j = i + 1; j < size; j++) {
                    cpu_set_t both;
                    CPU_AND(&both, &sets[i], &sets[j]);
                    CHECK(CPU_COUNT(&both) == 0, "ranks %d and %d share %d CPUs", i, j, CPU_COUNT(&both));
                }
            printf("affinity ok: %d ranks on disjoint CPU sets\n", size);
        }
        free(sets);
    } else if (strcmp(mode, "stdin") == 0) {
        char line[128] = {0};
        if (rank == 0) {
            CHECK(fgets(line, sizeof line, stdin) != NULL, "rank 0: no line on standard input");
            line[strcspn(line, "\n")] = 0;
        }
        CHECK_OK(MPI_Bcast(line, sizeof line, MPI_CHAR, 0, MPI_COMM_WORLD));
        printf("rank %d read '%s'\n", rank, line);
    } else if (strcmp(mode, "signal") == 0) {
        char path[4096];
        CHECK(argc > 2, "signal: no directory");
        snprintf(path, sizeof path, "%s/ready.%d", argv[2], rank);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL, "cannot create %s", path);
        fclose(f);
        for (int i = 0; i < 3000 && !got_usr1; i++)
            usleep(10000);
        CHECK(got_usr1, "rank %d: no SIGUSR1 within 30 s", rank);
        printf("rank %d caught SIGUSR1\n", rank);
        CHECK_OK(MPI_Barrier(MPI_COMM_WORLD));
    } else {
        CHECK(0, "unknown mode '%s'", mode);
    }
    fflush(stdout);
    CHECK_OK(MPI_Finalize());
    return 0;
}

/* Partitioned communication as [PA] section II-A and Figure 1 draw it: the send and
 * receive buffers are cut into partitions, OpenMP threads fill their partition and
 * mark it ready with MPI_Pready, and the receiver's threads consume each partition as
 * soon as MPI_Parrived reports it, while the rest is still on its way.
 *
 *   mpixexec -n 2 partitioned [aggregation [rounds]]
 *
 * aggregation is one of none, table, ploggp, timer_ploggp (the mpix_part_aggregation
 * info key); MPIX_Part_get_info tells what the library chose and how many transport
 * writes the last round took. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define PARTS 16
#define COUNT 4096 /* doubles per partition */

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            fprintf(stderr, "partitioned: needs 2 processes and MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 1;
    }
    const char *aggr = argc > 1 ? argv[1] : "timer_ploggp";
    int rounds = argc > 2 ? atoi(argv[2]) : 10;
    double *buf = malloc(sizeof(double) * PARTS * COUNT);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpix_part_aggregation", aggr);
    MPI_Request req = MPI_REQUEST_NULL;
    if (rank == 0)
        MPI_Psend_init(buf, PARTS, COUNT, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, info, &req);
    else if (rank == 1)
        MPI_Precv_init(buf, PARTS, COUNT, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Info_free(&info);

    long bad = 0;
    double sum = 0;
    for (int r = 0; r < rounds && rank < 2; r++) {
        MPI_Start(&req);
#pragma omp parallel for schedule(static) reduction(+ : bad, sum)
        for (int p = 0; p < PARTS; p++) {
            double *part = buf + (size_t)p * COUNT;
            if (rank == 0) { /* compute the partition, then hand it over */
                for (int i = 0; i < COUNT; i++)
                    part[i] = r + p + i * 1e-3;
                MPI_Pready(p, req);
            } else { /* consume the partition as soon as it has arrived */
                int arrived = 0;
                while (!arrived)
                    MPI_Parrived(req, p, &arrived);
                for (int i = 0; i < COUNT; i++) {
                    bad += part[i] != r + p + i * 1e-3;
                    sum += part[i];
                }
            }
        }
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rank < 2) {
        MPI_Info used;
        char strategy[64], groups[32], writes[32], path[16];
        int flag;
        MPIX_Part_get_info(req, &used);
        MPI_Info_get(used, "mpix_part_aggregation", sizeof strategy - 1, strategy, &flag);
        MPI_Info_get(used, "mpix_part_transport_partitions", sizeof groups - 1, groups, &flag);
        MPI_Info_get(used, "mpix_part_writes", sizeof writes - 1, writes, &flag);
        MPI_Info_get(used, "mpix_part_path", sizeof path - 1, path, &flag);
        MPI_Info_free(&used);
        if (rank == 1)
            printf("partitioned: %d rounds of %d x %d doubles, %d threads: %s (aggregation %s, "
                   "%s transport partitions, %s writes in the last round, path %s)\n",
                   rounds, PARTS, COUNT, omp_get_max_threads(), bad ? "WRONG DATA" : "data ok",
                   strategy, groups, writes, path);
        MPI_Request_free(&req);
    }
    free(buf);
    MPI_Finalize();
    return bad ? 1 : 0;
}

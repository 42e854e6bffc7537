/* An IOR-like MPI-IO benchmark: every rank writes, then reads, its share of one file,
 * in two patterns, independently and collectively:
 *   contig   each rank one contiguous block of SIZE bytes (block r at r*SIZE), in
 *            1 MiB calls;
 *   strided  many small records: the ranks' REC-byte records interleave (record i of
 *            rank r at (i*np + r)*REC), through a file view, in calls of 1 MiB of
 *            data each.
 * Writes end with MPI_File_sync (the data reaches the disk, as dd conv=fsync); reads
 * follow a sync and may come from the page cache. Each rank prints
 *   io <pattern> <write|read> <indep|coll> MB/s
 * (the aggregate bandwidth, bytes of all ranks over the slowest rank's time), and rank
 * 0 prints the file system's own limit, the same total bytes written by one process
 * with write(2) in 1 MiB blocks and fsync:
 *   io dd write limit MB/s
 * Arguments: SIZE_MIB (per rank, default 64) REC_BYTES (default 256) DIR (default
 * $TMPDIR or .). */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double now(void) { return MPI_Wtime(); }

static void report(const char *pattern, const char *op, const char *mode, double bytes, double t, int rank)
{
    double slowest;
    MPI_Reduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("io %s %s %s %.1f\n", pattern, op, mode, bytes / slowest / 1e6);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long size = (argc > 1 ? atol(argv[1]) : 64) << 20;
    int rec = argc > 2 ? atoi(argv[2]) : 256;
    const char *dir = argc > 3 ? argv[3] : getenv("TMPDIR");
    if (dir == NULL || *dir == 0)
        dir = ".";
    int pid = getpid();
    MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
    char name[4096];
    snprintf(name, sizeof name, "%s/mpix-bench-io-%d", dir, pid);
    const long chunk = 1 << 20;
    char *buf = malloc(chunk);
    memset(buf, rank + 1, chunk);
    double total = (double)size * np;

    /* The file system's limit: one process, write(2) of 1 MiB blocks, fsync. */
    if (rank == 0) {
        char dd[4200];
        snprintf(dd, sizeof dd, "%s.dd", name);
        int fd = open(dd, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        double t = now();
        for (double done = 0; done < total; done += chunk)
            if (write(fd, buf, chunk) != chunk) {
                perror("write");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        fsync(fd);
        t = now() - t;
        close(fd);
        unlink(dd);
        printf("io dd write limit %.1f\n", total / t / 1e6);
    }

    MPI_Datatype recT, ftype;
    MPI_Type_contiguous(rec, MPI_BYTE, &recT);
    MPI_Type_create_resized(recT, 0, (MPI_Aint)rec * np, &ftype);
    MPI_Type_commit(&ftype);
    for (int pattern = 0; pattern < 2; pattern++) {
        const char *pname = pattern ? "strided" : "contig";
        for (int coll = 0; coll < 2; coll++) {
            const char *mode = coll ? "coll" : "indep";
            for (int write = 1; write >= 0; write--) {
                MPI_File fh;
                MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh);
                if (pattern)
                    MPI_File_set_view(fh, (MPI_Offset)rank * rec, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
                else
                    MPI_File_set_view(fh, (MPI_Offset)rank * size, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
                MPI_Barrier(MPI_COMM_WORLD);
                double t = now();
                for (long off = 0; off < size; off += chunk) {
                    int n = (int)(size - off < chunk ? size - off : chunk);
                    int rc;
                    if (write)
                        rc = coll ? MPI_File_write_all(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
                                  : MPI_File_write(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
                    else
                        rc = coll ? MPI_File_read_all(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE)
                                  : MPI_File_read(fh, buf, n, MPI_BYTE, MPI_STATUS_IGNORE);
                    if (rc != MPI_SUCCESS) {
                        fprintf(stderr, "io: %s %s %s failed\n", pname, write ? "write" : "read", mode);
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
                }
                if (write)
                    MPI_File_sync(fh);
                t = now() - t;
                MPI_File_close(&fh);
                report(pname, write ? "write" : "read", mode, total, t, rank);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(name, MPI_INFO_NULL);
    MPI_Type_free(&recT);
    MPI_Type_free(&ftype);
    free(buf);
    MPI_Finalize();
    return 0;
}

/* Collective accesses under every collective-buffering setting: the ranks write
 * interleaved records of REC ints (rank r's i-th record at record i*size+r) with
 * MPI_File_write_all through a strided view, from a strided memory type; POSIX checks
 * every byte; MPI_File_read_at_all reads them back, also across the end of the file.
 * Settings: romio_cb_write/read automatic, enable with cb_nodes 1 and 2 (two-phase
 * through one or two aggregators), the same in rounds of a 100-byte cb_buffer_size
 * (records cut across rounds), and disable (each rank's own access). */
#include "io_common.h"

enum { REC = 3, NREC = 50 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[512];
    io_name(name, sizeof name, "coll", MPI_COMM_WORLD);
    struct { const char *cb, *nodes, *bufsize; } settings[] = {
        {"automatic", NULL, NULL}, {"enable", "1", NULL}, {"enable", "2", NULL},
        {"enable", "2", "100"}, {"disable", NULL, NULL},
    };
    MPI_Datatype rec, ftype, memtype;
    MPI_Type_contiguous(REC, MPI_INT, &rec);
    MPI_Type_create_resized(rec, 0, (MPI_Aint)REC * size * sizeof(int), &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_vector(NREC * REC, 1, 2, MPI_INT, &memtype); /* every other int */
    MPI_Type_commit(&memtype);
    int n = NREC * REC;
    int *mem = malloc(2 * n * sizeof(int)), *back = malloc(2 * n * sizeof(int));
    long total = (long)n * size * sizeof(int);
    int *disk = malloc(total + 64);

    for (size_t s = 0; s < sizeof settings / sizeof settings[0]; s++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "romio_cb_write", settings[s].cb);
        MPI_Info_set(info, "romio_cb_read", settings[s].cb);
        if (settings[s].nodes)
            MPI_Info_set(info, "cb_nodes", settings[s].nodes);
        if (settings[s].bufsize)
            MPI_Info_set(info, "cb_buffer_size", settings[s].bufsize);
        MPI_File fh;
        CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
        MPI_Info_free(&info);
        CHECK_OK(MPI_File_set_size(fh, 0));
        CHECK_OK(MPI_File_set_view(fh, (MPI_Offset)rank * REC * sizeof(int), MPI_INT, ftype, "native", MPI_INFO_NULL));
        for (int i = 0; i < n; i++) {
            mem[2 * i] = (int)(s * 1000000 + rank * 10000 + i);
            mem[2 * i + 1] = -7;
        }
        MPI_Status st;
        int count;
        CHECK_OK(MPI_File_write_all(fh, mem, 1, memtype, &st));
        MPI_Get_elements(&st, MPI_INT, &count);
        CHECK(count == n, "setting %zu: write_all wrote %d ints, want %d", s, count, n);
        MPI_Offset pos;
        CHECK_OK(MPI_File_get_position(fh, &pos));
        CHECK(pos == n, "setting %zu: position %lld after write_all", s, (long long)pos);
        CHECK_OK(MPI_File_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);

        long got = io_slurp(name, (unsigned char *)disk, total + 64);
        CHECK(got == total, "setting %zu: file size %ld, want %ld", s, got, total);
        for (long j = 0; j < (long)n * size; j++) {
            long recno = j / REC, r = recno % size, i = (recno / size) * REC + j % REC;
            int want = (int)(s * 1000000 + r * 10000 + i);
            CHECK(disk[j] == want, "setting %zu: int %ld on disk is %d, want %d", s, j, disk[j], want);
        }
        MPI_Barrier(MPI_COMM_WORLD);

        /* Read back into every other int; then a read that runs past the end. */
        for (int i = 0; i < 2 * n; i++)
            back[i] = -1;
        CHECK_OK(MPI_File_read_at_all(fh, 0, back, 1, memtype, &st));
        MPI_Get_elements(&st, MPI_INT, &count);
        CHECK(count == n, "setting %zu: read_at_all read %d ints", s, count);
        for (int i = 0; i < 2 * n; i++)
            CHECK(back[i] == mem[i] || (i % 2 == 1 && back[i] == -1), "setting %zu: read back %d at %d, want %d", s, back[i], i, mem[i]);
        CHECK_OK(MPI_File_read_at_all(fh, n - 2, back, 5, MPI_INT, &st));
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == 2 && back[0] == mem[2 * (n - 2)] && back[1] == mem[2 * (n - 1)],
              "setting %zu: read_at_all across the end: count %d", s, count);
        /* Ranks with nothing to do take part too. */
        CHECK_OK(MPI_File_write_at_all(fh, 0, mem, rank == 0 ? 1 : 0, MPI_INT, &st));
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == (rank == 0 ? 1 : 0), "setting %zu: empty write_at_all count %d", s, count);
        CHECK_OK(MPI_File_close(&fh));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        CHECK_OK(MPI_File_delete(name, MPI_INFO_NULL));
    MPI_Type_free(&rec);
    MPI_Type_free(&ftype);
    MPI_Type_free(&memtype);
    free(mem);
    free(back);
    free(disk);
    if (rank == 0)
        printf("io_coll: %d processes OK\n", size);
    MPI_Finalize();
    return 0;
}

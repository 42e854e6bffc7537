/* The shared file pointer: write_ordered lays the ranks' data out in rank order,
 * write_shared and iwrite_shared give each access its own contiguous place, seek_shared
 * and get_position_shared move and report the pointer, read_ordered reads back; atomic
 * mode; MPI_MODE_SEQUENTIAL refuses explicit offsets. Checked with POSIX. */
#include "io_common.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[512];
    io_name(name, sizeof name, "shared", MPI_COMM_WORLD);
    MPI_File fh;
    MPI_Status st;
    int count;

    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL, &fh));
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));

    /* Rank r writes r+1 ints of value r, in rank order. */
    int mine[64];
    for (int i = 0; i <= rank; i++)
        mine[i] = rank;
    CHECK_OK(MPI_File_write_ordered(fh, mine, rank + 1, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == rank + 1, "write_ordered count %d", count);
    int ordered = size * (size + 1) / 2;
    MPI_Offset pos;
    /* Any rank may move the pointer again as soon as it leaves the collective: look
     * between two barriers. */
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == ordered, "shared pointer %lld after write_ordered, want %d", (long long)pos, ordered);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Then 3 records per rank through write_shared and one through iwrite_shared. */
    int rec[3];
    for (int k = 0; k < 3; k++)
        rec[k] = 1000 * (rank + 1) + k;
    CHECK_OK(MPI_File_write_shared(fh, rec, 3, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 3, "write_shared count %d", count);
    MPI_Request r;
    int one = -(rank + 1);
    CHECK_OK(MPI_File_iwrite_shared(fh, &one, 1, MPI_INT, &r));
    CHECK_OK(MPI_Wait(&r, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == ordered + 4 * size, "shared pointer %lld, want %d", (long long)pos, ordered + 4 * size);

    /* On disk: the ordered part, then each rank's record whole, once. */
    long want = (long)(ordered + 4 * size) * sizeof(int);
    int disk[1024];
    long got = io_slurp(name, (unsigned char *)disk, sizeof disk);
    CHECK(got == want, "file size %ld, want %ld", got, want);
    int j = 0;
    for (int rr = 0; rr < size; rr++)
        for (int i = 0; i <= rr; i++, j++)
            CHECK(disk[j] == rr, "ordered int %d is %d, want %d", j, disk[j], rr);
    int seen3[64] = {0}, seen1[64] = {0};
    while (j < ordered + 4 * size) {
        if (disk[j] < 0) {
            int who = -disk[j] - 1;
            CHECK(who >= 0 && who < size, "bad single record %d", disk[j]);
            seen1[who]++;
            j++;
            continue;
        }
        int who = disk[j] / 1000 - 1;
        CHECK(who >= 0 && who < size, "bad record start %d at %d", disk[j], j);
        for (int k = 0; k < 3; k++)
            CHECK(disk[j + k] == 1000 * (who + 1) + k, "record of rank %d broken at %d", who, j + k);
        seen3[who]++;
        j += 3;
    }
    for (int rr = 0; rr < size; rr++)
        CHECK(seen3[rr] == 1 && seen1[rr] == 1, "rank %d's records seen %d and %d times", rr, seen3[rr], seen1[rr]);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Back to the start, read the ordered part in order. */
    CHECK_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    CHECK_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 0, "seek_shared(0): %lld", (long long)pos);
    int back[64];
    CHECK_OK(MPI_File_read_ordered(fh, back, rank + 1, MPI_INT, &st));
    for (int i = 0; i <= rank; i++)
        CHECK(back[i] == rank, "read_ordered: %d is %d", i, back[i]);
    CHECK_OK(MPI_File_read_ordered_begin(fh, back, 1, MPI_INT));
    CHECK_OK(MPI_File_read_ordered_end(fh, back, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 1, "read_ordered_end count %d", count);
    CHECK_OK(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    CHECK_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == ordered + 4 * size, "seek_shared end: %lld", (long long)pos);
    MPI_Barrier(MPI_COMM_WORLD); /* read_shared moves the pointer even past the end */
    CHECK_OK(MPI_File_read_shared(fh, back, 1, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0, "read_shared at the end: count %d", count);

    /* Atomic mode. */
    int flag;
    CHECK_OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 0, "atomic mode on by default");
    CHECK_OK(MPI_File_set_atomicity(fh, 1));
    CHECK_OK(MPI_File_get_atomicity(fh, &flag));
    CHECK(flag == 1, "set_atomicity(1) not reported");
    int v = 5000 + rank;
    CHECK_OK(MPI_File_write_at(fh, rank, &v, 1, MPI_INT, &st));
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_read_at(fh, (rank + 1) % size, &v, 1, MPI_INT, &st));
    CHECK(v == 5000 + (rank + 1) % size, "atomic read of the neighbour's write: %d", v);
    CHECK_OK(MPI_File_set_atomicity(fh, 0));
    CHECK_OK(MPI_File_close(&fh));

    /* MPI_MODE_SEQUENTIAL: the shared pointer only. */
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK_CLASS(MPI_File_write_at(fh, 0, &v, 1, MPI_INT, &st), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_CLASS(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK_OK(MPI_File_write_ordered(fh, &v, 1, MPI_INT, &st));
    CHECK_OK(MPI_File_close(&fh));
    CHECK(!io_exists(name), "the file outlived MPI_MODE_DELETE_ON_CLOSE");

    if (rank == 0)
        printf("io_shared: %d processes OK\n", size);
    MPI_Finalize();
    return 0;
}

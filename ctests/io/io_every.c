/* Every data access procedure, in its int and large-count (_c) forms: explicit
 * offsets, the individual pointer, the shared pointer (ordered, and shared serialized
 * by rank so that its place is known), blocking, nonblocking and split collective.
 * Form k writes rank r's R ints to region k*size+r of the file; POSIX checks them on
 * disk, then the matching read form reads them back. */
#include "io_common.h"

enum { R = 4, FORMS = 28 };
static int rank, size;

static MPI_Offset region(int k) { return (MPI_Offset)(k * size + rank) * R; }
static MPI_Offset row(int k) { return (MPI_Offset)k * size * R; }

static void fill(int *b, int k)
{
    for (int i = 0; i < R; i++)
        b[i] = k * 1000000 + rank * 1000 + i;
}

/* check_status checks that a status reports R ints. */
static void check_status(MPI_Status *st, int k)
{
    int count;
    MPI_Count big;
    MPI_Get_count(st, MPI_INT, &count);
    MPI_Get_count_c(st, MPI_INT, &big);
    CHECK(count == R && big == R, "form %d: status count %d (large %lld), want %d", k, count, (long long)big, R);
}

static void wait_one(MPI_Request *r, int k)
{
    MPI_Status st;
    CHECK_OK(MPI_Wait(r, &st));
    check_status(&st, k);
}

/* serialized runs an access through the shared pointer at rank r's place of row k:
 * the ranks take turns from the start of the row. */
#define SERIALIZED(fh, k, call)                                       \
    do {                                                              \
        CHECK_OK(MPI_File_seek_shared(fh, row(k), MPI_SEEK_SET));      \
        for (int r_ = 0; r_ < size; r_++) {                           \
            if (r_ == rank) {                                         \
                call;                                                 \
            }                                                         \
            MPI_Barrier(MPI_COMM_WORLD);                              \
        }                                                             \
    } while (0)

/* access runs form k of a write (w) or a read into buf. */
static void access_form(MPI_File fh, int k, int w, int *buf)
{
    MPI_Status st;
    MPI_Request r;
    MPI_Offset off = region(k);
    MPI_Count n = R;
    switch (k) {
    case 0: CHECK_OK(w ? MPI_File_write_at(fh, off, buf, R, MPI_INT, &st) : MPI_File_read_at(fh, off, buf, R, MPI_INT, &st)); break;
    case 1: CHECK_OK(w ? MPI_File_write_at_c(fh, off, buf, n, MPI_INT, &st) : MPI_File_read_at_c(fh, off, buf, n, MPI_INT, &st)); break;
    case 2: CHECK_OK(w ? MPI_File_write_at_all(fh, off, buf, R, MPI_INT, &st) : MPI_File_read_at_all(fh, off, buf, R, MPI_INT, &st)); break;
    case 3: CHECK_OK(w ? MPI_File_write_at_all_c(fh, off, buf, n, MPI_INT, &st) : MPI_File_read_at_all_c(fh, off, buf, n, MPI_INT, &st)); break;
    case 4: CHECK_OK(w ? MPI_File_iwrite_at(fh, off, buf, R, MPI_INT, &r) : MPI_File_iread_at(fh, off, buf, R, MPI_INT, &r)); wait_one(&r, k); return;
    case 5: CHECK_OK(w ? MPI_File_iwrite_at_c(fh, off, buf, n, MPI_INT, &r) : MPI_File_iread_at_c(fh, off, buf, n, MPI_INT, &r)); wait_one(&r, k); return;
    case 6: CHECK_OK(w ? MPI_File_iwrite_at_all(fh, off, buf, R, MPI_INT, &r) : MPI_File_iread_at_all(fh, off, buf, R, MPI_INT, &r)); wait_one(&r, k); return;
    case 7: CHECK_OK(w ? MPI_File_iwrite_at_all_c(fh, off, buf, n, MPI_INT, &r) : MPI_File_iread_at_all_c(fh, off, buf, n, MPI_INT, &r)); wait_one(&r, k); return;
    case 8:
        CHECK_OK(w ? MPI_File_write_at_all_begin(fh, off, buf, R, MPI_INT) : MPI_File_read_at_all_begin(fh, off, buf, R, MPI_INT));
        CHECK_OK(w ? MPI_File_write_at_all_end(fh, buf, &st) : MPI_File_read_at_all_end(fh, buf, &st));
        break;
    case 9:
        CHECK_OK(w ? MPI_File_write_at_all_begin_c(fh, off, buf, n, MPI_INT) : MPI_File_read_at_all_begin_c(fh, off, buf, n, MPI_INT));
        CHECK_OK(w ? MPI_File_write_at_all_end(fh, buf, &st) : MPI_File_read_at_all_end(fh, buf, &st));
        break;
    }
    if (k >= 10 && k < 20)
        CHECK_OK(MPI_File_seek(fh, off, MPI_SEEK_SET));
    switch (k) {
    case 10: CHECK_OK(w ? MPI_File_write(fh, buf, R, MPI_INT, &st) : MPI_File_read(fh, buf, R, MPI_INT, &st)); break;
    case 11: CHECK_OK(w ? MPI_File_write_c(fh, buf, n, MPI_INT, &st) : MPI_File_read_c(fh, buf, n, MPI_INT, &st)); break;
    case 12: CHECK_OK(w ? MPI_File_write_all(fh, buf, R, MPI_INT, &st) : MPI_File_read_all(fh, buf, R, MPI_INT, &st)); break;
    case 13: CHECK_OK(w ? MPI_File_write_all_c(fh, buf, n, MPI_INT, &st) : MPI_File_read_all_c(fh, buf, n, MPI_INT, &st)); break;
    case 14: CHECK_OK(w ? MPI_File_iwrite(fh, buf, R, MPI_INT, &r) : MPI_File_iread(fh, buf, R, MPI_INT, &r)); wait_one(&r, k); return;
    case 15: CHECK_OK(w ? MPI_File_iwrite_c(fh, buf, n, MPI_INT, &r) : MPI_File_iread_c(fh, buf, n, MPI_INT, &r)); wait_one(&r, k); return;
    case 16: CHECK_OK(w ? MPI_File_iwrite_all(fh, buf, R, MPI_INT, &r) : MPI_File_iread_all(fh, buf, R, MPI_INT, &r)); wait_one(&r, k); return;
    case 17: CHECK_OK(w ? MPI_File_iwrite_all_c(fh, buf, n, MPI_INT, &r) : MPI_File_iread_all_c(fh, buf, n, MPI_INT, &r)); wait_one(&r, k); return;
    case 18:
        CHECK_OK(w ? MPI_File_write_all_begin(fh, buf, R, MPI_INT) : MPI_File_read_all_begin(fh, buf, R, MPI_INT));
        CHECK_OK(w ? MPI_File_write_all_end(fh, buf, &st) : MPI_File_read_all_end(fh, buf, &st));
        break;
    case 19:
        CHECK_OK(w ? MPI_File_write_all_begin_c(fh, buf, n, MPI_INT) : MPI_File_read_all_begin_c(fh, buf, n, MPI_INT));
        CHECK_OK(w ? MPI_File_write_all_end(fh, buf, &st) : MPI_File_read_all_end(fh, buf, &st));
        break;
    }
    if (k >= 20 && k < 24)
        CHECK_OK(MPI_File_seek_shared(fh, row(k), MPI_SEEK_SET));
    switch (k) {
    case 20: CHECK_OK(w ? MPI_File_write_ordered(fh, buf, R, MPI_INT, &st) : MPI_File_read_ordered(fh, buf, R, MPI_INT, &st)); break;
    case 21: CHECK_OK(w ? MPI_File_write_ordered_c(fh, buf, n, MPI_INT, &st) : MPI_File_read_ordered_c(fh, buf, n, MPI_INT, &st)); break;
    case 22:
        CHECK_OK(w ? MPI_File_write_ordered_begin(fh, buf, R, MPI_INT) : MPI_File_read_ordered_begin(fh, buf, R, MPI_INT));
        CHECK_OK(w ? MPI_File_write_ordered_end(fh, buf, &st) : MPI_File_read_ordered_end(fh, buf, &st));
        break;
    case 23:
        CHECK_OK(w ? MPI_File_write_ordered_begin_c(fh, buf, n, MPI_INT) : MPI_File_read_ordered_begin_c(fh, buf, n, MPI_INT));
        CHECK_OK(w ? MPI_File_write_ordered_end(fh, buf, &st) : MPI_File_read_ordered_end(fh, buf, &st));
        break;
    case 24: SERIALIZED(fh, k, CHECK_OK(w ? MPI_File_write_shared(fh, buf, R, MPI_INT, &st) : MPI_File_read_shared(fh, buf, R, MPI_INT, &st))); break;
    case 25: SERIALIZED(fh, k, CHECK_OK(w ? MPI_File_write_shared_c(fh, buf, n, MPI_INT, &st) : MPI_File_read_shared_c(fh, buf, n, MPI_INT, &st))); break;
    case 26: SERIALIZED(fh, k, CHECK_OK(w ? MPI_File_iwrite_shared(fh, buf, R, MPI_INT, &r) : MPI_File_iread_shared(fh, buf, R, MPI_INT, &r)); wait_one(&r, k)); return;
    case 27: SERIALIZED(fh, k, CHECK_OK(w ? MPI_File_iwrite_shared_c(fh, buf, n, MPI_INT, &r) : MPI_File_iread_shared_c(fh, buf, n, MPI_INT, &r)); wait_one(&r, k)); return;
    }
    check_status(&st, k);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[512];
    io_name(name, sizeof name, "every", MPI_COMM_WORLD);
    MPI_File fh;
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, MPI_INFO_NULL, &fh));
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    MPI_Count ext;
    CHECK_OK(MPI_File_get_type_extent_c(fh, MPI_DOUBLE, &ext));
    CHECK(ext == sizeof(double), "get_type_extent_c(MPI_DOUBLE) = %lld", (long long)ext);

    int buf[R], want[R];
    for (int k = 0; k < FORMS; k++) {
        fill(buf, k);
        access_form(fh, k, 1, buf);
    }
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);

    /* On disk, with POSIX. */
    int fd = open(name, O_RDONLY);
    CHECK(fd >= 0, "open %s", name);
    for (int k = 0; k < FORMS; k++) {
        fill(want, k);
        CHECK(pread(fd, buf, sizeof buf, region(k) * sizeof(int)) == sizeof buf, "pread form %d", k);
        for (int i = 0; i < R; i++)
            CHECK(buf[i] == want[i], "form %d wrote %d at int %d, want %d", k, buf[i], i, want[i]);
    }
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);

    /* Read back through every read form. */
    for (int k = 0; k < FORMS; k++) {
        memset(buf, 0xff, sizeof buf);
        access_form(fh, k, 0, buf);
        fill(want, k);
        for (int i = 0; i < R; i++)
            CHECK(buf[i] == want[i], "form %d read %d at int %d, want %d", k, buf[i], i, want[i]);
    }
    CHECK_OK(MPI_File_close(&fh));
    if (rank == 0)
        CHECK_OK(MPI_File_delete(name, MPI_INFO_NULL));
    if (rank == 0)
        printf("io_every: %d forms at %d processes OK\n", FORMS, size);
    MPI_Finalize();
    return 0;
}

/* File views with holes: every rank sees blocks of B ints of a shared file, rank r the
 * r-th block of each row of size blocks, after a header of HDR bytes. Collective and
 * independent writes through the view, checked with POSIX byte by byte; reads back
 * through the view into a strided memory type; short reads at the end of the file;
 * the individual file pointer (seek, get_position, get_byte_offset); split
 * collectives; nonblocking accesses completed by MPI_Waitall and MPI_Test; the
 * external32 representation, big-endian on disk. */
#include "io_common.h"

enum { B = 4, K = 3, TILES = 2, HDR = 12 };

static int expect_at(long j, int size) /* the int at index j after the header */
{
    long block = j / B, r = block % size, i = (block / size) * B + j % B;
    return (int)(r * 10000 + i);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[512];
    io_name(name, sizeof name, "view", MPI_COMM_WORLD);
    MPI_File fh;
    MPI_Status st;
    int count;

    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    MPI_Datatype vec, ftype;
    MPI_Type_vector(K, B, B * size, MPI_INT, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)K * B * size * sizeof(int), &ftype);
    MPI_Type_commit(&ftype);
    MPI_Offset disp = HDR + (MPI_Offset)rank * B * sizeof(int);
    CHECK_OK(MPI_File_set_view(fh, disp, MPI_INT, ftype, "native", MPI_INFO_NULL));

    /* get_view gives back what was set. */
    MPI_Offset d;
    MPI_Datatype et, ft;
    char rep[MPI_MAX_DATAREP_STRING];
    CHECK_OK(MPI_File_get_view(fh, &d, &et, &ft, rep));
    CHECK(d == disp && et == MPI_INT && strcmp(rep, "native") == 0, "get_view: disp %lld rep %s", (long long)d, rep);
    int ni, na, nd, comb;
    MPI_Type_get_envelope(ft, &ni, &na, &nd, &comb);
    CHECK(comb == MPI_COMBINER_RESIZED, "get_view's filetype combiner %d", comb);
    MPI_Type_free(&ft);

    /* A collective write of TILES tiles. */
    int n = TILES * K * B;
    int *out = malloc(n * sizeof(int)), *in = malloc(2 * n * sizeof(int));
    for (int i = 0; i < n; i++)
        out[i] = rank * 10000 + i;
    CHECK_OK(MPI_File_write_at_all(fh, 0, out, n, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == n, "write_at_all count %d, want %d", count, n);
    CHECK_OK(MPI_File_sync(fh));
    MPI_Barrier(MPI_COMM_WORLD);

    /* The bytes on disk. */
    long total = HDR + (long)n * size * sizeof(int);
    unsigned char *disk = malloc(total + 64);
    long got = io_slurp(name, disk, total + 64);
    CHECK(got == total, "file size %ld, want %ld", got, total);
    for (int i = 0; i < HDR; i++)
        CHECK(disk[i] == 0, "header byte %d is %d", i, disk[i]);
    for (long j = 0; j < (long)n * size; j++) {
        int v;
        memcpy(&v, disk + HDR + j * sizeof(int), sizeof v);
        CHECK(v == expect_at(j, size), "int %ld on disk is %d, want %d", j, v, expect_at(j, size));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Read back through the view into every other int of memory. */
    MPI_Datatype strided;
    MPI_Type_vector(n, 1, 2, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    for (int i = 0; i < 2 * n; i++)
        in[i] = -1;
    CHECK_OK(MPI_File_read_at_all(fh, 0, in, 1, strided, &st));
    MPI_Get_count(&st, strided, &count);
    CHECK(count == 1, "read_at_all of one strided element: count %d", count);
    MPI_Get_elements(&st, MPI_INT, &count);
    CHECK(count == n, "read_at_all elements %d, want %d", count, n);
    for (int i = 0; i < n; i++)
        CHECK(in[2 * i] == out[i] && in[2 * i + 1] == -1, "strided read: in[%d]=%d want %d", 2 * i, in[2 * i], out[i]);

    /* A read that meets the end of the file stops there. */
    CHECK_OK(MPI_File_read_at(fh, n - 2, in, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 2 && in[0] == out[n - 2] && in[1] == out[n - 1], "short read: count %d", count);
    CHECK_OK(MPI_File_read_at(fh, n + 5, in, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0, "read past the end: count %d", count);

    /* The individual file pointer. */
    MPI_Offset pos, byte;
    CHECK_OK(MPI_File_seek(fh, 3, MPI_SEEK_SET));
    CHECK_OK(MPI_File_read(fh, in, 2, MPI_INT, &st));
    CHECK(in[0] == out[3] && in[1] == out[4], "read at pointer 3: %d %d", in[0], in[1]);
    CHECK_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 5, "position %lld after reading 2 from 3", (long long)pos);
    CHECK_OK(MPI_File_seek(fh, -1, MPI_SEEK_CUR));
    CHECK_OK(MPI_File_read_all(fh, in, 1, MPI_INT, &st));
    CHECK(in[0] == out[4], "read_all after seek_cur: %d", in[0]);
    CHECK_OK(MPI_File_get_byte_offset(fh, 5, &byte));
    CHECK(byte == disp + (MPI_Offset)((size * B + 1) * sizeof(int)), "byte offset of etype 5: %lld", (long long)byte);
    CHECK_OK(MPI_File_seek(fh, 0, MPI_SEEK_END));
    CHECK_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == n, "seek_end: position %lld, want %d", (long long)pos, n);
    CHECK_CLASS(MPI_File_seek(fh, -1, MPI_SEEK_SET), MPI_ERR_ARG);
    MPI_Aint ext;
    CHECK_OK(MPI_File_get_type_extent(fh, ftype, &ext));
    CHECK(ext == (MPI_Aint)(K * B * size * sizeof(int)), "type extent %ld", (long)ext);

    /* Individual writes through the pointer, then split collectives. */
    for (int i = 0; i < n; i++)
        out[i] = -(rank * 10000 + i);
    CHECK_OK(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    CHECK_OK(MPI_File_write(fh, out, n / 2, MPI_INT, &st));
    CHECK_OK(MPI_File_write_all_begin(fh, out + n / 2, n - n / 2, MPI_INT));
    CHECK_CLASS(MPI_File_write_all_begin(fh, out, 1, MPI_INT), MPI_ERR_OTHER);
    CHECK_OK(MPI_File_write_all_end(fh, out + n / 2, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == n - n / 2, "write_all_end count %d", count);
    CHECK_OK(MPI_File_read_at_all_begin(fh, 0, in, n, MPI_INT));
    CHECK_OK(MPI_File_read_at_all_end(fh, in, &st));
    for (int i = 0; i < n; i++)
        CHECK(in[i] == out[i], "after split write: in[%d]=%d want %d", i, in[i], out[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    got = io_slurp(name, disk, total + 64);
    for (long j = 0; j < (long)n * size; j++) {
        int v;
        memcpy(&v, disk + HDR + j * sizeof(int), sizeof v);
        CHECK(v == -expect_at(j, size), "after rewrite int %ld on disk is %d, want %d", j, v, -expect_at(j, size));
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Nonblocking: MPI_Waitall over iwrite_at, then MPI_Test over iread_at. */
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    MPI_Request reqs[4];
    MPI_Status sts[4];
    int vals[4];
    for (int k = 0; k < 4; k++) {
        vals[k] = 7000 + k * size + rank;
        CHECK_OK(MPI_File_iwrite_at(fh, (MPI_Offset)(k * size + rank) * sizeof(int), &vals[k], 1, MPI_INT, &reqs[k]));
    }
    CHECK_OK(MPI_Waitall(4, reqs, sts));
    for (int k = 0; k < 4; k++) {
        MPI_Get_count(&sts[k], MPI_INT, &count);
        CHECK(count == 1 && reqs[k] == MPI_REQUEST_NULL, "iwrite_at %d: count %d", k, count);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    got = io_slurp(name, disk, total + 64);
    for (int j = 0; j < 4 * size; j++) {
        int v;
        memcpy(&v, disk + j * sizeof(int), sizeof v);
        CHECK(v == 7000 + j, "iwrite_at: int %d on disk is %d", j, v);
    }
    MPI_Request r;
    int all[64], done = 0;
    CHECK_OK(MPI_File_iread_at_all(fh, 0, all, 4 * size, MPI_INT, &r));
    while (!done)
        CHECK_OK(MPI_Test(&r, &done, &st));
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 4 * size, "iread_at_all count %d", count);
    for (int j = 0; j < 4 * size; j++)
        CHECK(all[j] == 7000 + j, "iread_at_all: %d is %d", j, all[j]);
    CHECK_OK(MPI_File_seek(fh, (MPI_Offset)rank * sizeof(int), MPI_SEEK_SET));
    CHECK_OK(MPI_File_iread(fh, &vals[0], 1, MPI_INT, &r));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK(vals[0] == 7000 + rank, "iread at the pointer: %d", vals[0]);

    /* external32: the file holds the ints big-endian; reads convert back. */
    CHECK_OK(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    CHECK_OK(MPI_File_get_view(fh, &d, &et, &ft, rep));
    CHECK(strcmp(rep, "external32") == 0, "get_view datarep %s", rep);
    int x = 0x01020304 + (rank << 8), xs[2] = {x, x + 1};
    CHECK_OK(MPI_File_write_at_all(fh, 2 * rank, xs, 2, MPI_INT, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    got = io_slurp(name, disk, total + 64);
    for (int rr = 0; rr < size; rr++)
        for (int k = 0; k < 2; k++) {
            unsigned char *p = disk + (2 * rr + k) * 4;
            CHECK(p[0] == 1 && p[1] == 2 && p[2] == 3 + rr && p[3] == 4 + k,
                  "external32 int of rank %d on disk: %02x %02x %02x %02x", rr, p[0], p[1], p[2], p[3]);
        }
    xs[0] = xs[1] = 0;
    CHECK_OK(MPI_File_read_at(fh, 2 * ((rank + 1) % size), xs, 2, MPI_INT, &st));
    CHECK(xs[0] == 0x01020304 + (((rank + 1) % size) << 8) && xs[1] == xs[0] + 1, "external32 read back %#x %#x", xs[0], xs[1]);
    long lv = 5;
    CHECK_CLASS(MPI_File_write_at(fh, 0, &lv, 1, MPI_LONG, &st), MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);

    /* Views that are erroneous. */
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_CHAR, "native", MPI_INFO_NULL), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL), MPI_ERR_UNSUPPORTED_DATAREP);
    CHECK_CLASS(MPI_File_set_view(fh, -4, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_ERR_ARG);

    MPI_Type_free(&strided);
    MPI_Type_free(&vec);
    MPI_Type_free(&ftype);
    CHECK_OK(MPI_File_close(&fh));
    CHECK(!io_exists(name), "the file outlived MPI_MODE_DELETE_ON_CLOSE");
    free(out);
    free(in);
    free(disk);
    if (rank == 0)
        printf("io_view: %d processes OK\n", size);
    MPI_Finalize();
    return 0;
}

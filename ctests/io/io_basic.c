/* MPI-IO basics: open with every access mode flag and the error classes of bad ones,
 * close, delete, set_size, preallocate, get_size, sync, get_group, get_amode, info
 * hints, file error handlers (MPI_ERRORS_RETURN by default, on MPI_FILE_NULL too),
 * MPI_File_c2f/f2c, and invalid handles. Every size is checked with POSIX. */
#include "io_common.h"

static int handler_calls, handler_class;
static MPI_File handler_file;

static void file_handler(MPI_File *fh, int *code, ...)
{
    handler_calls++;
    handler_file = *fh;
    MPI_Error_class(*code, &handler_class);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[512], missing[600], local[600];
    io_name(name, sizeof name, "basic", MPI_COMM_WORLD);
    snprintf(missing, sizeof missing, "%s.missing", name);
    MPI_File fh;

    /* The default error handler of files, and of MPI_FILE_NULL, returns codes. */
    MPI_Errhandler eh;
    CHECK_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    CHECK(eh == MPI_ERRORS_RETURN, "MPI_FILE_NULL's handler is %#x, want MPI_ERRORS_RETURN", (unsigned)eh);
    MPI_Errhandler_free(&eh);

    /* Errors of open, with their classes. */
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    CHECK(fh == MPI_FILE_NULL, "a failed open leaves MPI_FILE_NULL");
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, "/proc/mpix-no-such-dir/x", MPI_MODE_WRONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh), MPI_ERR_NO_SUCH_FILE);
    const char *dir = getenv("TMPDIR");
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, dir && *dir ? dir : ".", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), MPI_ERR_BAD_FILE);

    /* Create with hints; the reserved ones are reported as in use. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "1048576");
    MPI_Info_set(info, "striping_unit", "65536");
    MPI_Info_set(info, "mpix_test_key", "kept");
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, info, &fh));
    MPI_Info_free(&info);
    CHECK(fh != MPI_FILE_NULL, "open gave MPI_FILE_NULL");
    CHECK(io_exists(name), "the file was not created");
    MPI_Info used;
    CHECK_OK(MPI_File_get_info(fh, &used));
    char val[MPI_MAX_INFO_VAL + 1];
    int flag;
    struct { const char *key, *want; } hints[] = {
        {"cb_buffer_size", "1048576"}, {"striping_unit", "65536"}, {"mpix_test_key", "kept"},
        {"romio_cb_write", NULL}, {"romio_cb_read", NULL}, {"cb_nodes", NULL},
    };
    for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
        MPI_Info_get(used, hints[i].key, MPI_MAX_INFO_VAL, val, &flag);
        CHECK(flag, "hint %s not reported", hints[i].key);
        if (hints[i].want)
            CHECK(strcmp(val, hints[i].want) == 0, "hint %s is %s, want %s", hints[i].key, val, hints[i].want);
    }
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    CHECK_OK(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
    CHECK_OK(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "romio_cb_write", MPI_MAX_INFO_VAL, val, &flag);
    CHECK(flag && strcmp(val, "enable") == 0, "set_info's romio_cb_write not reported");
    MPI_Info_free(&used);

    /* amode, group. */
    int amode;
    CHECK_OK(MPI_File_get_amode(fh, &amode));
    CHECK(amode == (MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL), "amode %d", amode);
    MPI_Group g, wg;
    int cmp;
    CHECK_OK(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "the file's group differs from the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);

    /* Sizes, checked against the file system. */
    MPI_Offset sz;
    CHECK_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 0, "new file size %lld", (long long)sz);
    CHECK_OK(MPI_File_set_size(fh, 1000));
    CHECK_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 1000, "size after set_size %lld", (long long)sz);
    struct stat st;
    stat(name, &st);
    CHECK(st.st_size == 1000, "POSIX size %lld after set_size(1000)", (long long)st.st_size);
    CHECK_OK(MPI_File_preallocate(fh, 4096));
    stat(name, &st);
    CHECK(st.st_size == 4096, "POSIX size %lld after preallocate(4096)", (long long)st.st_size);
    CHECK_OK(MPI_File_preallocate(fh, 100)); /* never shrinks */
    CHECK_OK(MPI_File_get_size(fh, &sz));
    CHECK(sz == 4096, "preallocate shrank the file to %lld", (long long)sz);
    CHECK_OK(MPI_File_set_size(fh, 10));
    stat(name, &st);
    CHECK(st.st_size == 10, "POSIX size %lld after set_size(10)", (long long)st.st_size);
    CHECK_OK(MPI_File_sync(fh));
    CHECK_CLASS(MPI_File_set_size(fh, -1), MPI_ERR_ARG);

    /* Fortran handles through the file table. */
    MPI_Fint f = MPI_File_c2f(fh);
    CHECK(f > 0, "MPI_File_c2f gave %d", (int)f);
    CHECK(MPI_File_f2c(f) == fh, "MPI_File_f2c(c2f(fh)) != fh");
    CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0, "c2f(MPI_FILE_NULL) != 0");
    CHECK(MPI_File_f2c(0) == MPI_FILE_NULL, "f2c(0) != MPI_FILE_NULL");

    /* A user error handler on the file: called with the file and the class. */
    MPI_Errhandler mine;
    CHECK_OK(MPI_File_create_errhandler(file_handler, &mine));
    CHECK_OK(MPI_File_set_errhandler(fh, mine));
    int buf[4] = {0};
    CHECK_CLASS(MPI_File_read_at(fh, -5, buf, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ARG);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_ARG && handler_file == fh,
          "handler calls %d class %d", handler_calls, handler_class);
    CHECK_OK(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    CHECK(handler_calls == 2 && handler_class == MPI_ERR_IO, "call_errhandler did not reach the handler");
    CHECK_OK(MPI_File_get_errhandler(fh, &eh));
    CHECK(eh == mine, "get_errhandler gave another handler");
    MPI_Errhandler_free(&eh);
    CHECK_OK(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));

    CHECK_OK(MPI_File_close(&fh));
    CHECK(fh == MPI_FILE_NULL, "close leaves MPI_FILE_NULL");
    CHECK(MPI_File_c2f(fh) == 0, "c2f after close");
    CHECK(MPI_File_f2c(f) != MPI_FILE_NULL, "f2c of a closed file's handle must be invalid, not NULL");

    /* A closed, forged or stale handle is MPI_ERR_FILE, never a crash. */
    MPI_File stale = MPI_File_f2c(f);
    CHECK_CLASS(MPI_File_get_size(stale, &sz), MPI_ERR_FILE);
    int junk;
    CHECK_CLASS(MPI_File_get_size((MPI_File)&junk, &sz), MPI_ERR_FILE);
    CHECK_CLASS(MPI_File_get_size(MPI_FILE_NULL, &sz), MPI_ERR_FILE);

    /* MPI_FILE_NULL's user handler catches errors of open. */
    CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, mine));
    handler_calls = 0;
    CHECK_CLASS(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_EXCL, MPI_INFO_NULL, &fh), MPI_ERR_FILE_EXISTS);
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_FILE_EXISTS && handler_file == MPI_FILE_NULL,
          "MPI_FILE_NULL's handler: calls %d class %d", handler_calls, handler_class);
    CHECK_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&mine);

    /* Access modes are enforced. */
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK_CLASS(MPI_File_write_at(fh, 0, buf, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_READ_ONLY);
    CHECK_CLASS(MPI_File_set_size(fh, 0), MPI_ERR_READ_ONLY);
    CHECK_OK(MPI_File_close(&fh));
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    CHECK_CLASS(MPI_File_read_at(fh, 0, buf, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    CHECK_OK(MPI_File_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);

    /* Delete; a second delete has nothing to delete. */
    if (rank == 0) {
        CHECK_OK(MPI_File_delete(name, MPI_INFO_NULL));
        CHECK(!io_exists(name), "delete left the file");
        CHECK_CLASS(MPI_File_delete(name, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_MODE_DELETE_ON_CLOSE, and MPI_MODE_APPEND's file pointers at the end. */
    if (rank == 0) {
        int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CHECK(write(fd, "0123456789", 10) == 10, "write");
        close(fd);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_APPEND | MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN, MPI_INFO_NULL, &fh));
    MPI_Offset pos;
    CHECK_OK(MPI_File_get_position(fh, &pos));
    CHECK(pos == 10, "MPI_MODE_APPEND: individual pointer at %lld, want 10", (long long)pos);
    CHECK_OK(MPI_File_get_position_shared(fh, &pos));
    CHECK(pos == 10, "MPI_MODE_APPEND: shared pointer at %lld, want 10", (long long)pos);
    CHECK_OK(MPI_File_close(&fh));
    CHECK(!io_exists(name), "MPI_MODE_DELETE_ON_CLOSE left the file");

    /* A close that fails (the file to delete on close is already gone) reports to
     * the closed file's handler, with the handle it had. */
    CHECK_OK(MPI_File_open(MPI_COMM_WORLD, name, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK_OK(MPI_File_create_errhandler(file_handler, &mine));
    CHECK_OK(MPI_File_set_errhandler(fh, mine));
    MPI_Errhandler_free(&mine);
    MPI_File closing = fh;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        unlink(name);
    MPI_Barrier(MPI_COMM_WORLD);
    handler_calls = 0;
    CHECK_CLASS(MPI_File_close(&fh), MPI_ERR_NO_SUCH_FILE);
    CHECK(fh == MPI_FILE_NULL, "a failed close still frees the handle");
    CHECK(handler_calls == 1 && handler_class == MPI_ERR_NO_SUCH_FILE && handler_file == closing,
          "close's error: handler calls %d class %d", handler_calls, handler_class);

    /* A file per process on MPI_COMM_SELF. */
    snprintf(local, sizeof local, "%s.rank%d", name, rank);
    CHECK_OK(MPI_File_open(MPI_COMM_SELF, local, MPI_MODE_WRONLY | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE, MPI_INFO_NULL, &fh));
    CHECK_OK(MPI_File_write(fh, &rank, 1, MPI_INT, MPI_STATUS_IGNORE));
    stat(local, &st);
    CHECK(st.st_size == sizeof(int), "the per-process file has %lld bytes", (long long)st.st_size);
    CHECK_OK(MPI_File_close(&fh));
    CHECK(!io_exists(local), "MPI_MODE_DELETE_ON_CLOSE on MPI_COMM_SELF left the file");

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("io_basic: %d processes OK\n", size);
    MPI_Finalize();
    return 0;
}

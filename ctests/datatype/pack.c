/* pack: MPI_Pack/MPI_Unpack (and _c) of derived types at a running position,
 * MPI_Pack_size, external32 with MPI_Pack_external and friends (known big-endian
 * bytes, the standard's sizes), addresses, and the error classes for truncation,
 * uncommitted types, bad counts and unknown data representations. */
#include <stdint.h>
#include "mpix_test.h"

static void expect_bytes(const char *what, const unsigned char *got, const char *hex, int n)
{
    for (int i = 0; i < n; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        CHECK(got[i] == v, "%s: byte %d is %02x, want %02x (want %s)", what, i, got[i], v, hex);
    }
}

int main(int argc, char **argv)
{
    MPI_Datatype vec, st, notcommitted;
    int pos, size;
    MPI_Count cpos, csize;

    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    /* A vector with gaps and a negative-stride struct, packed one after another. */
    int a[12];
    for (int i = 0; i < 12; i++)
        a[i] = 100 + i;
    CHECK_OK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec)); /* a[0],a[1],a[4],a[5],a[8],a[9] */
    CHECK_OK(MPI_Type_commit(&vec));
    struct { char c; double d; } s[2] = {{'x', 1.5}, {'y', -2.25}};
    MPI_Aint disp[2] = {0, 8};
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, disp, (MPI_Datatype[]){MPI_CHAR, MPI_DOUBLE}, &st));
    CHECK_OK(MPI_Type_commit(&st));
    CHECK_OK(MPI_Pack_size(1, vec, MPI_COMM_WORLD, &size));
    CHECK(size == 24, "pack size of vec %d", size);
    CHECK_OK(MPI_Pack_size(2, st, MPI_COMM_WORLD, &size));
    CHECK(size == 18, "pack size of 2 structs %d", size);
    CHECK_OK(MPI_Pack_size_c(2, st, MPI_COMM_WORLD, &csize));
    CHECK(csize == 18, "pack size_c %ld", (long)csize);

    char buf[64];
    pos = 0;
    CHECK_OK(MPI_Pack(a, 1, vec, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 24, "position after vec %d", pos);
    CHECK_OK(MPI_Pack(s, 2, st, buf, sizeof buf, &pos, MPI_COMM_WORLD));
    CHECK(pos == 42, "position after structs %d", pos);
    int packed_ints[6];
    memcpy(packed_ints, buf, 24);
    int want_ints[6] = {100, 101, 104, 105, 108, 109};
    for (int i = 0; i < 6; i++)
        CHECK(packed_ints[i] == want_ints[i], "packed int %d = %d", i, packed_ints[i]);
    CHECK(buf[24] == 'x' && buf[33] == 'y', "packed chars");

    int b[12];
    memset(b, 0, sizeof b);
    struct { char c; double d; } s2[2];
    memset(s2, 0, sizeof s2);
    pos = 0;
    CHECK_OK(MPI_Unpack(buf, 42, &pos, b, 1, vec, MPI_COMM_WORLD));
    CHECK_OK(MPI_Unpack(buf, 42, &pos, s2, 2, st, MPI_COMM_WORLD));
    CHECK(pos == 42, "position after unpack %d", pos);
    for (int i = 0; i < 12; i++)
        CHECK(b[i] == ((i % 4) < 2 ? 100 + i : 0), "unpacked b[%d] = %d (gaps untouched)", i, b[i]);
    CHECK(s2[0].c == 'x' && s2[0].d == 1.5 && s2[1].c == 'y' && s2[1].d == -2.25, "unpacked structs");

    /* The large-count forms. */
    cpos = 3;
    CHECK_OK(MPI_Pack_c(a, 2, MPI_INT, buf, 64, &cpos, MPI_COMM_WORLD));
    CHECK(cpos == 11, "pack_c position %ld", (long)cpos);
    int two[2] = {0, 0};
    cpos = 3;
    CHECK_OK(MPI_Unpack_c(buf, 64, &cpos, two, 2, MPI_INT, MPI_COMM_WORLD));
    CHECK(cpos == 11 && two[0] == 100 && two[1] == 101, "unpack_c");

    /* Errors. */
    pos = 0;
    CHECK_CLASS(MPI_Pack(a, 1, vec, buf, 20, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    CHECK(pos == 0, "failed pack moved the position");
    pos = 30;
    CHECK_CLASS(MPI_Unpack(buf, 42, &pos, b, 1, vec, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = 0;
    CHECK_CLASS(MPI_Pack(a, -1, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Pack(a, 1, MPI_INT, buf, -8, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = -1;
    CHECK_CLASS(MPI_Pack(a, 1, MPI_INT, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_ARG);
    pos = 0;
    CHECK_CLASS(MPI_Pack(a, 1, MPI_DATATYPE_NULL, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Pack(a, 1, MPI_INT, buf, 64, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Pack(a, 1, MPI_INT, buf, 64, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_OK(MPI_Type_contiguous(2, MPI_INT, &notcommitted));
    CHECK_CLASS(MPI_Pack(a, 1, notcommitted, buf, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Unpack(buf, 64, &pos, a, 1, notcommitted, MPI_COMM_WORLD), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &size), MPI_ERR_COUNT);
    CHECK_OK(MPI_Pack_size(0, MPI_INT, MPI_COMM_WORLD, &size));
    CHECK(size == 0, "pack size 0");
    {
        MPI_Datatype huge;
        CHECK_OK(MPI_Type_contiguous_c((MPI_Count)1 << 30, MPI_DOUBLE, &huge));
        CHECK_CLASS(MPI_Pack_size(1, huge, MPI_COMM_WORLD, &size), MPI_ERR_VALUE_TOO_LARGE);
        CHECK_OK(MPI_Pack_size_c(3, huge, MPI_COMM_WORLD, &csize));
        CHECK(csize == (MPI_Count)3 << 33, "pack_size_c of 24 GiB");
        CHECK_CLASS(MPI_Pack_size_c((MPI_Count)1 << 31, huge, MPI_COMM_WORLD, &csize), MPI_ERR_COUNT); /* 2^64 bytes */
        CHECK_OK(MPI_Type_size(huge, &size));
        CHECK(size == MPI_UNDEFINED, "MPI_Type_size of 8 GiB is MPI_UNDEFINED, got %d", size);
        CHECK_OK(MPI_Type_free(&huge));
    }

    /* external32: big-endian, MPI_LONG in 4 bytes, long double as binary128. */
    {
        unsigned char out[64];
        MPI_Aint apos = 0, asize;
        long l = 0x0102030405060708L;
        double d = 1.5;
        long double ld = 1.5L;
        CHECK_OK(MPI_Pack_external_size("external32", 1, MPI_LONG, &asize));
        CHECK(asize == 4, "external32 size of MPI_LONG %ld", (long)asize);
        CHECK_OK(MPI_Pack_external_size("external32", 3, MPI_DOUBLE_INT, &asize));
        CHECK(asize == 36, "external32 size of 3 MPI_DOUBLE_INT %ld", (long)asize);
        CHECK_OK(MPI_Pack_external_size_c("external32", 2, MPI_WCHAR, &csize));
        CHECK(csize == 4, "external32 size of MPI_WCHAR %ld", (long)csize);
        CHECK_OK(MPI_Pack_external("external32", &l, 1, MPI_LONG, out, sizeof out, &apos));
        CHECK_OK(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, out, sizeof out, &apos));
        CHECK_OK(MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, out, sizeof out, &apos));
        CHECK(apos == 28, "external32 position %ld", (long)apos);
        expect_bytes("external32", out, "05060708" "3ff8000000000000" "3fff8000000000000000000000000000", 28);
        long l2 = 0;
        double d2 = 0;
        long double ld2 = 0;
        apos = 0;
        CHECK_OK(MPI_Unpack_external("external32", out, 28, &apos, &l2, 1, MPI_LONG));
        CHECK_OK(MPI_Unpack_external("external32", out, 28, &apos, &d2, 1, MPI_DOUBLE));
        CHECK_OK(MPI_Unpack_external("external32", out, 28, &apos, &ld2, 1, MPI_LONG_DOUBLE));
        CHECK(apos == 28 && l2 == 0x05060708L && d2 == 1.5 && ld2 == 1.5L, "external32 round trip");
        /* a derived type, large-count forms */
        MPI_Count cp = 0;
        CHECK_OK(MPI_Pack_external_c("external32", a, 1, vec, out, sizeof out, &cp));
        CHECK(cp == 24, "external32 vec size %ld", (long)cp);
        expect_bytes("external32 vec", out, "000000640000006500000068000000690000006c0000006d", 24);
        memset(b, 0, sizeof b);
        cp = 0;
        CHECK_OK(MPI_Unpack_external_c("external32", out, 24, &cp, b, 1, vec));
        CHECK(cp == 24 && b[0] == 100 && b[5] == 105 && b[9] == 109 && b[2] == 0, "external32 vec round trip");
        /* errors */
        apos = 0;
        CHECK_CLASS(MPI_Pack_external("native", &l, 1, MPI_LONG, out, sizeof out, &apos), MPI_ERR_UNSUPPORTED_DATAREP);
        CHECK_CLASS(MPI_Pack_external_size("little", 1, MPI_LONG, &asize), MPI_ERR_UNSUPPORTED_DATAREP);
        CHECK_CLASS(MPI_Pack_external("external32", &d, 1, MPI_DOUBLE, out, 4, &apos), MPI_ERR_TRUNCATE);
        CHECK_CLASS(MPI_Unpack_external("external32", out, 4, &apos, &d, 1, MPI_DOUBLE), MPI_ERR_TRUNCATE);
        CHECK_CLASS(MPI_Pack_external("external32", a, 1, notcommitted, out, sizeof out, &apos), MPI_ERR_TYPE);
        CHECK_CLASS(MPI_Pack_external("external32", a, -1, MPI_INT, out, sizeof out, &apos), MPI_ERR_COUNT);
        CHECK_CLASS(MPI_Unpack_external_c("external32", out, 64, &cp, a, -1, MPI_INT), MPI_ERR_COUNT);
    }

    /* Addresses. */
    {
        MPI_Aint p1, p2;
        CHECK_OK(MPI_Get_address(&a[0], &p1));
        CHECK_OK(MPI_Address(&a[3], &p2));
        CHECK(p1 == (MPI_Aint)(uintptr_t)&a[0], "MPI_Get_address");
        CHECK(MPI_Aint_diff(p2, p1) == 12, "MPI_Aint_diff %ld", (long)MPI_Aint_diff(p2, p1));
        CHECK(MPI_Aint_add(p1, 12) == p2, "MPI_Aint_add");
        CHECK_CLASS(MPI_Get_address(&a[0], NULL), MPI_ERR_ARG);
        /* MPI_BOTTOM with absolute addresses */
        MPI_Datatype abs;
        CHECK_OK(MPI_Type_create_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){p2, p1}, MPI_INT, &abs));
        CHECK_OK(MPI_Type_commit(&abs));
        pos = 0;
        CHECK_OK(MPI_Pack(MPI_BOTTOM, 1, abs, buf, sizeof buf, &pos, MPI_COMM_WORLD));
        CHECK(pos == 8 && ((int *)buf)[0] == 103 && ((int *)buf)[1] == 100, "pack from MPI_BOTTOM");
        CHECK_OK(MPI_Type_free(&abs));
    }

    CHECK_OK(MPI_Type_free(&notcommitted));
    CHECK_OK(MPI_Type_free(&vec));
    CHECK_OK(MPI_Type_free(&st));
    CHECK_OK(MPI_Finalize());
    printf("pack ok\n");
    return 0;
}

/* status: MPI_Get_count/MPI_Get_elements (and _c, _x) on hand-filled statuses in
 * MPICH's layout (count_lo, count_hi_and_cancelled), MPI_Status_set_elements(_x),
 * MPI_Status_set_cancelled and MPI_Test_cancelled; MPI_UNDEFINED where the count is
 * not whole or does not fit in an int. */
#include "mpix_test.h"

static void set_bytes(MPI_Status *st, long long bytes)
{
    st->count_lo = (int)(unsigned)(bytes & 0xffffffff);
    st->count_hi_and_cancelled = (st->count_hi_and_cancelled & 1) | (int)((bytes >> 32) << 1);
}

int main(int argc, char **argv)
{
    MPI_Status st;
    int n, flag;
    MPI_Count c;
    MPI_Datatype s, z;

    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    memset(&st, 0, sizeof st);

    /* 12 bytes as ints: 3; as doubles: undefined count, undefined elements. */
    set_bytes(&st, 12);
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 3, "count %d", n);
    CHECK_OK(MPI_Get_elements(&st, MPI_INT, &n));
    CHECK(n == 3, "elements %d", n);
    CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE, &n));
    CHECK(n == MPI_UNDEFINED, "count of 12 bytes as double %d", n);
    CHECK_OK(MPI_Get_elements(&st, MPI_DOUBLE, &n));
    CHECK(n == MPI_UNDEFINED, "elements of 12 bytes as double %d", n);
    CHECK_OK(MPI_Get_count_c(&st, MPI_SHORT, &c));
    CHECK(c == 6, "count_c %ld", (long)c);
    /* Pair types have two basic elements. */
    CHECK_OK(MPI_Get_count(&st, MPI_DOUBLE_INT, &n));
    CHECK(n == 1, "count of MPI_DOUBLE_INT %d", n);
    CHECK_OK(MPI_Get_elements(&st, MPI_DOUBLE_INT, &n));
    CHECK(n == 2, "elements of MPI_DOUBLE_INT %d", n);

    /* A struct {double; char}: 9 bytes, 2 basic elements per element. */
    CHECK_OK(MPI_Type_create_struct(2, (int[]){1, 1}, (MPI_Aint[]){0, 8}, (MPI_Datatype[]){MPI_DOUBLE, MPI_CHAR}, &s));
    CHECK_OK(MPI_Type_commit(&s));
    set_bytes(&st, 27);
    CHECK_OK(MPI_Get_count(&st, s, &n));
    CHECK(n == 3, "struct count %d", n);
    CHECK_OK(MPI_Get_elements(&st, s, &n));
    CHECK(n == 6, "struct elements %d", n);
    set_bytes(&st, 17); /* one struct and one double */
    CHECK_OK(MPI_Get_count(&st, s, &n));
    CHECK(n == MPI_UNDEFINED, "partial struct count %d", n);
    CHECK_OK(MPI_Get_elements_x(&st, s, &c));
    CHECK(c == 3, "partial struct elements_x %ld", (long)c);
    CHECK_OK(MPI_Get_elements_c(&st, s, &c));
    CHECK(c == 3, "partial struct elements_c %ld", (long)c);

    /* MPI_Status_set_elements: Get_elements then returns the count set. */
    CHECK_OK(MPI_Status_set_elements(&st, s, 3));
    CHECK(st.count_lo == 17 && (st.count_hi_and_cancelled >> 1) == 0, "set_elements bytes %d", st.count_lo);
    CHECK_OK(MPI_Get_elements(&st, s, &n));
    CHECK(n == 3, "elements after set_elements %d", n);
    CHECK_OK(MPI_Status_set_elements(&st, MPI_INT, 5));
    CHECK_OK(MPI_Get_count(&st, MPI_INT, &n));
    CHECK(n == 5, "count after set_elements %d", n);
    CHECK_CLASS(MPI_Status_set_elements(&st, MPI_INT, -1), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Status_set_elements_x(&st, MPI_INT, -1), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Status_set_elements(&st, MPI_DATATYPE_NULL, 1), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Status_set_elements(MPI_STATUS_IGNORE, MPI_INT, 1), MPI_ERR_ARG);

    /* Large counts: the byte count spans both words. */
    CHECK_OK(MPI_Status_set_elements_x(&st, MPI_BYTE, ((MPI_Count)1 << 33) | 7));
    CHECK(st.count_lo == 7 && st.count_hi_and_cancelled == 4, "large count layout lo %d hi %d", st.count_lo,
          st.count_hi_and_cancelled);
    CHECK_OK(MPI_Get_count(&st, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED, "a count beyond INT_MAX is MPI_UNDEFINED, got %d", n);
    CHECK_OK(MPI_Get_elements(&st, MPI_BYTE, &n));
    CHECK(n == MPI_UNDEFINED, "elements beyond INT_MAX %d", n);
    CHECK_OK(MPI_Get_elements_x(&st, MPI_BYTE, &c));
    CHECK(c == (((MPI_Count)1 << 33) | 7), "elements_x %ld", (long)c);
    CHECK_OK(MPI_Get_count_c(&st, MPI_BYTE, &c));
    CHECK(c == (((MPI_Count)1 << 33) | 7), "count_c %ld", (long)c);

    /* Cancelled flag: bit 0 of count_hi_and_cancelled, independent of the count. */
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag, "not cancelled");
    CHECK_OK(MPI_Status_set_cancelled(&st, 1));
    CHECK(st.count_hi_and_cancelled == 5, "cancelled bit: %d", st.count_hi_and_cancelled);
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "cancelled");
    CHECK_OK(MPI_Get_elements_x(&st, MPI_BYTE, &c));
    CHECK(c == (((MPI_Count)1 << 33) | 7), "count kept across set_cancelled");
    CHECK_OK(MPI_Status_set_elements(&st, MPI_INT, 2));
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(flag, "set_elements keeps the cancelled flag");
    CHECK_OK(MPI_Status_set_cancelled(&st, 0));
    CHECK_OK(MPI_Test_cancelled(&st, &flag));
    CHECK(!flag && st.count_lo == 8, "uncancelled");
    CHECK_CLASS(MPI_Test_cancelled(MPI_STATUS_IGNORE, &flag), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Test_cancelled(&st, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_set_cancelled(MPI_STATUS_IGNORE, 1), MPI_ERR_ARG);

    /* A datatype of size zero: a count of zero. */
    CHECK_OK(MPI_Type_contiguous(0, MPI_INT, &z));
    CHECK_OK(MPI_Type_commit(&z));
    set_bytes(&st, 0);
    CHECK_OK(MPI_Get_count(&st, z, &n));
    CHECK(n == 0, "count of a zero-size type %d", n);
    CHECK_OK(MPI_Get_elements(&st, z, &n));
    CHECK(n == 0, "elements of a zero-size type %d", n);
    CHECK_OK(MPI_Status_set_elements(&st, z, 3));
    CHECK(st.count_lo == 0, "set_elements of a zero-size type");

    /* Invalid arguments. */
    CHECK_CLASS(MPI_Get_count(NULL, MPI_INT, &n), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Get_count(&st, MPI_DATATYPE_NULL, &n), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Get_elements(&st, MPI_INT, NULL), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Get_elements_c(MPI_STATUS_IGNORE, MPI_INT, &c), MPI_ERR_ARG);

    CHECK_OK(MPI_Type_free(&z));
    CHECK_OK(MPI_Type_free(&s));
    CHECK_OK(MPI_Finalize());
    printf("status counts ok\n");
    return 0;
}

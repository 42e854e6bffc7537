/* status: MPI_Status is MPICH's 20-byte layout and the MPI-4.1 accessors read and write
 * its public fields; MPI_STATUS_IGNORE is refused where a real status is needed. */
#include <stddef.h>
#include "mpix_test.h"

int main(int argc, char **argv)
{
    MPI_Status st;
    int v;
    CHECK(sizeof(MPI_Status) == 20, "sizeof(MPI_Status) = %zu", sizeof(MPI_Status));
    CHECK(offsetof(MPI_Status, MPI_SOURCE) == 8 && offsetof(MPI_Status, MPI_TAG) == 12 &&
              offsetof(MPI_Status, MPI_ERROR) == 16, "MPI_Status layout");
    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    memset(&st, 0, sizeof st);
    CHECK_OK(MPI_Status_set_source(&st, 3));
    CHECK_OK(MPI_Status_set_tag(&st, 77));
    CHECK_OK(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
    CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 77 && st.MPI_ERROR == MPI_ERR_TRUNCATE, "fields not set");
    CHECK_OK(MPI_Status_get_source(&st, &v));
    CHECK(v == 3, "source %d", v);
    CHECK_OK(MPI_Status_get_tag(&st, &v));
    CHECK(v == 77, "tag %d", v);
    CHECK_OK(MPI_Status_get_error(&st, &v));
    CHECK(v == MPI_ERR_TRUNCATE, "error %d", v);
    CHECK_CLASS(MPI_Status_get_tag(MPI_STATUS_IGNORE, &v), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_set_tag(NULL, 1), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Status_get_tag(&st, NULL), MPI_ERR_ARG);
    CHECK_OK(MPI_Finalize());
    return 0;
}

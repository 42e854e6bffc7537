/* User operations through MPI_Op_create/MPI_Op_create_c, MPI_Reduce_local(_c) and
 * MPI_Op_free: a non-commutative 2x2 matrix product on a derived type applied in rank
 * order, a commutative large-count sum, MPI_Op_commutative on predefined and user ops,
 * handle conversion, and the error cases under MPI_ERRORS_RETURN. */
#include "mpix_test.h"

static int calls, last_len, type_size;
static MPI_Datatype last_type;

/* inout = in * inout for each 2x2 row-major matrix: not commutative. It also calls
 * back into MPI, which a user function may do. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *dt)
{
    calls++;
    last_len = *len;
    last_type = *dt;
    MPI_Type_size(*dt, &type_size);
    double *a = invec, *b = inoutvec;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        double r[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                       a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, r, sizeof r);
    }
}

static void mul(const double *a, const double *b, double *r)
{
    double t[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                   a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
    memcpy(r, t, sizeof t);
}

static MPI_Count last_count;

static void isum_c(void *invec, void *inoutvec, MPI_Count *len, MPI_Datatype *dt)
{
    calls++;
    last_count = *len;
    last_type = *dt;
    int *a = invec, *b = inoutvec;
    for (MPI_Count i = 0; i < *len; i++)
        b[i] += a[i];
}

static void test_noncommutative(void)
{
    MPI_Datatype mat;
    MPI_Op op;
    int commute = -1;
    CHECK_OK(MPI_Type_contiguous(4, MPI_DOUBLE, &mat));
    CHECK_OK(MPI_Type_commit(&mat));
    CHECK_OK(MPI_Op_create(matmul, 0, &op));
    CHECK(op != MPI_OP_NULL, "MPI_Op_create returned MPI_OP_NULL");
    CHECK_OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 0, "matmul op: commute = %d, want 0", commute);

    /* Three matrices at once: inout[k] = in[k] * inout[k]. */
    double in[12] = {1, 2, 3, 4, 0, 1, 1, 0, 2, 0, 1, 1};
    double io[12] = {5, 6, 7, 8, 1, 2, 3, 4, 1, 1, 0, 1};
    double want[12];
    for (int k = 0; k < 3; k++)
        mul(in + 4 * k, io + 4 * k, want + 4 * k);
    calls = 0;
    CHECK_OK(MPI_Reduce_local(in, io, 3, mat, op));
    CHECK(calls == 1 && last_len == 3 && last_type == mat && type_size == 32,
          "user function called %d times, len %d, type 0x%x (want 0x%x), size %d", calls, last_len,
          (unsigned)last_type, (unsigned)mat, type_size);
    for (int i = 0; i < 12; i++)
        CHECK(io[i] == want[i], "matmul: element %d = %g, want %g", i, io[i], want[i]);
    double other[4];
    double a0[4] = {1, 2, 3, 4}, b0[4] = {5, 6, 7, 8};
    mul(b0, a0, other);
    CHECK(memcmp(other, want, sizeof other) != 0, "the test matrices commute");

    /* A reduction over ranks 0..3 in rank order, as MPI_Reduce combines them:
     * m0 * m1 * m2 * m3, folded from the right with inout = in * inout. */
    double m[4][4] = {{1, 1, 0, 1}, {2, 0, 1, 1}, {0, 1, 1, 3}, {1, 2, 2, 1}};
    double acc[4], ref[4];
    memcpy(acc, m[3], sizeof acc);
    for (int r = 2; r >= 0; r--)
        CHECK_OK(MPI_Reduce_local(m[r], acc, 1, mat, op));
    mul(m[0], m[1], ref);
    mul(ref, m[2], ref);
    mul(ref, m[3], ref);
    for (int i = 0; i < 4; i++)
        CHECK(acc[i] == ref[i], "rank-order product: element %d = %g, want %g", i, acc[i], ref[i]);

    /* Freeing: the handle becomes MPI_OP_NULL and the old value is invalid. */
    MPI_Op old = op;
    CHECK_OK(MPI_Op_free(&op));
    CHECK(op == MPI_OP_NULL, "MPI_Op_free left 0x%x", (unsigned)op);
    CHECK_CLASS(MPI_Reduce_local(in, io, 1, mat, old), MPI_ERR_OP);
    CHECK_CLASS(MPI_Op_commutative(old, &commute), MPI_ERR_OP);
    CHECK_CLASS(MPI_Op_free(&old), MPI_ERR_OP);
    MPI_Type_free(&mat);
}

static void test_large_count(void)
{
    MPI_Op op;
    int commute = -1;
    CHECK_OK(MPI_Op_create_c(isum_c, 1, &op));
    CHECK_OK(MPI_Op_commutative(op, &commute));
    CHECK(commute == 1, "isum_c op: commute = %d, want 1", commute);
    int a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50};
    calls = 0;
    CHECK_OK(MPI_Reduce_local_c(a, b, (MPI_Count)5, MPI_INT, op));
    CHECK(calls == 1 && last_count == 5 && last_type == MPI_INT, "calls %d, len %lld", calls,
          (long long)last_count);
    for (int i = 0; i < 5; i++)
        CHECK(b[i] == 11 * (i + 1), "isum_c: b[%d] = %d", i, b[i]);
    /* The int-count call reaches the same function with an MPI_Count length. */
    CHECK_OK(MPI_Reduce_local(a, b, 3, MPI_INT, op));
    CHECK(calls == 2 && last_count == 3 && b[2] == 36 && b[3] == 44, "int-count call: len %lld",
          (long long)last_count);
    /* A count of 0 does not call the function. */
    CHECK_OK(MPI_Reduce_local(a, b, 0, MPI_INT, op));
    CHECK(calls == 2, "count 0 called the user function");
    CHECK_OK(MPI_Op_free(&op));
}

static void test_handles(void)
{
    static const MPI_Op predefined[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                                        MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR,
                                        MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    for (unsigned i = 0; i < sizeof predefined / sizeof predefined[0]; i++) {
        int commute = -1;
        CHECK_OK(MPI_Op_commutative(predefined[i], &commute));
        CHECK(commute == 1, "predefined op 0x%x: commute = %d", (unsigned)predefined[i], commute);
        CHECK(MPI_Op_f2c(MPI_Op_c2f(predefined[i])) == predefined[i], "c2f/f2c of 0x%x", (unsigned)predefined[i]);
        MPI_Op p = predefined[i];
        CHECK_CLASS(MPI_Op_free(&p), MPI_ERR_OP);
        CHECK(p == predefined[i], "failed MPI_Op_free changed the handle");
    }

    /* Many ops: distinct handles, freed handles reused, conversions round-trip. */
    MPI_Op many[100];
    for (int i = 0; i < 100; i++) {
        CHECK_OK(MPI_Op_create(matmul, i % 2, &many[i]));
        for (int j = 0; j < i; j++)
            CHECK(many[j] != many[i], "ops %d and %d share handle 0x%x", j, i, (unsigned)many[i]);
        CHECK(MPI_Op_f2c(MPI_Op_c2f(many[i])) == many[i], "c2f/f2c of a user op");
        int commute;
        CHECK_OK(MPI_Op_commutative(many[i], &commute));
        CHECK(commute == i % 2, "op %d: commute %d", i, commute);
    }
    for (int i = 0; i < 100; i++)
        CHECK_OK(MPI_Op_free(&many[i]));

    MPI_Op null = MPI_OP_NULL;
    int commute;
    CHECK_CLASS(MPI_Op_free(&null), MPI_ERR_OP);
    CHECK_CLASS(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP);
    CHECK_CLASS(MPI_Op_commutative((MPI_Op)0x58000000, &commute), MPI_ERR_OP);
    CHECK_CLASS(MPI_Op_commutative(MPI_SUM, NULL), MPI_ERR_ARG);
    MPI_Op op;
    CHECK_CLASS(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Op_create_c(NULL, 1, &op), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Op_create(matmul, 1, NULL), MPI_ERR_ARG);
}

static void test_reduce_local_errors(void)
{
    int a[4] = {1, 2, 3, 4}, b[4] = {0};
    MPI_Datatype vec;
    CHECK_CLASS(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE);
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, MPI_INT, (MPI_Op)0x12345), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, MPI_INT, (MPI_Op)MPI_COMM_WORLD), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_local(MPI_IN_PLACE, b, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_local(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_local(NULL, b, 1, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, MPI_WCHAR, MPI_SUM), MPI_ERR_OP); /* MPI_CHAR is allowed, as in MPICH */
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, MPI_INT, MPI_MAXLOC), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_local_c(a, b, (MPI_Count)-1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
    CHECK_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    CHECK_CLASS(MPI_Reduce_local(a, b, 1, vec, MPI_SUM), MPI_ERR_TYPE); /* not committed */
    CHECK_OK(MPI_Type_commit(&vec));
    CHECK_OK(MPI_Reduce_local(a, b, 1, vec, MPI_SUM));
    CHECK(b[0] == 1 && b[1] == 0 && b[2] == 3 && b[3] == 0, "vector sum: %d %d %d %d", b[0], b[1], b[2], b[3]);
    MPI_Type_free(&vec);
    /* An empty reduction is fine, even with NULL buffers. */
    CHECK_OK(MPI_Reduce_local(NULL, NULL, 0, MPI_INT, MPI_SUM));
    /* Nothing was changed by the failed calls. */
    CHECK(b[0] == 1 && b[2] == 3, "a failed MPI_Reduce_local changed the buffer");
    char msg[MPI_MAX_ERROR_STRING];
    int len, rc = MPI_Reduce_local(a, b, 1, MPI_WCHAR, MPI_SUM);
    /* MPI fixes the class (MPI_ERR_OP), not the message. */
    CHECK(mpix_test_class(rc) == MPI_ERR_OP, "MPI_SUM on MPI_WCHAR: class %d", mpix_test_class(rc));
    CHECK_OK(MPI_Error_string(rc, msg, &len));
    CHECK(len > 0 && (int)strlen(msg) == len, "message '%s' of length %d", msg, len);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    test_noncommutative();
    test_large_count();
    test_handles();
    test_reduce_local_errors();
    printf("op user: ok\n");
    MPI_Finalize();
    return 0;
}

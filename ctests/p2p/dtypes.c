/* dtypes: derived datatypes with gaps on both sides: a strided vector sent into a
 * contiguous buffer and back, a resized struct with a negative lower bound, eager and
 * rendezvous sizes, non-contiguous on the sender, the receiver, and both. */
#include "p2p_util.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Status st;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* vector: count blocks of 3 ints every 5 ints. */
    for (int blocks = 4; blocks <= 20000; blocks *= 50) {
        MPI_Datatype vec;
        CHECK_OK(MPI_Type_vector(blocks, 3, 5, MPI_INT, &vec));
        CHECK_OK(MPI_Type_commit(&vec));
        int *strided = malloc(sizeof(int) * 5 * blocks), *packed = malloc(sizeof(int) * 3 * blocks);
        int *back = calloc(5 * blocks, sizeof(int));
        for (int i = 0; i < 5 * blocks; i++)
            strided[i] = (i % 5 < 3) ? rank * 1000000 + i : -1;
        /* strided -> contiguous */
        CHECK_OK(MPI_Sendrecv(strided, 1, vec, right, 1, packed, 3 * blocks, MPI_INT, left, 1, MPI_COMM_WORLD, &st));
        for (int b = 0, j = 0; b < blocks; b++)
            for (int k = 0; k < 3; k++, j++)
                CHECK(packed[j] == left * 1000000 + b * 5 + k, "vector->contig block %d", b);
        /* contiguous -> strided: gaps untouched */
        for (int i = 0; i < 5 * blocks; i++)
            back[i] = -7;
        CHECK_OK(MPI_Sendrecv(packed, 3 * blocks, MPI_INT, right, 2, back, 1, vec, left, 2, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 5 * blocks; i++) {
            int from = (rank + size - 2) % size; /* packed came from left, which got it from its left */
            CHECK(i % 5 < 3 ? back[i] == from * 1000000 + i : back[i] == -7, "contig->vector element %d = %d", i, back[i]);
        }
        /* strided -> strided */
        CHECK_OK(MPI_Sendrecv(strided, 1, vec, right, 3, back, 1, vec, left, 3, MPI_COMM_WORLD, &st));
        for (int i = 0; i < 5 * blocks; i++)
            CHECK(i % 5 < 3 ? back[i] == left * 1000000 + i : back[i] == -7, "vector->vector %d", i);
        int count;
        MPI_Get_count(&st, vec, &count);
        CHECK(count == 1, "Get_count of the vector %d", count);
        MPI_Type_free(&vec);
        free(strided);
        free(packed);
        free(back);
    }
    /* struct {char c; double d;} resized to a negative lower bound, 1000 elements. */
    struct item { char c; double d; } items[1000], got[1000];
    int bl[2] = {1, 1};
    MPI_Aint disp[2], base;
    MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE}, st1, st2;
    MPI_Get_address(&items[0], &base);
    MPI_Get_address(&items[0].c, &disp[0]);
    MPI_Get_address(&items[0].d, &disp[1]);
    disp[0] -= base;
    disp[1] -= base;
    CHECK_OK(MPI_Type_create_struct(2, bl, disp, types, &st1));
    CHECK_OK(MPI_Type_create_resized(st1, 0, sizeof(struct item), &st2));
    CHECK_OK(MPI_Type_commit(&st2));
    for (int i = 0; i < 1000; i++) {
        items[i].c = (char)(rank + i);
        items[i].d = rank * 1.5 + i;
        got[i].c = 0;
        got[i].d = 0;
    }
    CHECK_OK(MPI_Sendrecv(items, 1000, st2, right, 4, got, 1000, st2, left, 4, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 1000; i++)
        CHECK(got[i].c == (char)(left + i) && got[i].d == left * 1.5 + i, "struct item %d", i);
    MPI_Type_free(&st1);
    MPI_Type_free(&st2);
    /* An uncommitted type cannot communicate. */
    MPI_Datatype raw;
    MPI_Type_contiguous(2, MPI_INT, &raw);
    CHECK_CLASS(MPI_Send(items, 1, raw, right, 5, MPI_COMM_WORLD), MPI_ERR_TYPE);
    MPI_Type_free(&raw);
    CHECK_OK(MPI_Finalize());
    return 0;
}

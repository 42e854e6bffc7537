/* large: the MPI_Count (_c) forms of the point-to-point calls, and counts that do not
 * fit an int: 3e9 elements of a zero-size type move no data but must be accepted. */
#include "p2p_util.h"

#define GUARD 16
#define SENT 0xA5

/* wipe fills a receive buffer of n bytes and GUARD bytes after it with a sentinel;
 * got checks that every one of the n bytes is the sender's pattern and the guard is
 * untouched. */
static void wipe(unsigned char *b, long n) { memset(b, SENT, (size_t)n + GUARD); }
static void got(const unsigned char *b, long n, int seed, const char *what)
{
    long bad = check(b, n, seed);
    CHECK(bad < 0, "%s of %ld bytes: byte %ld is %d, want %d", what, n, bad, bad < 0 ? 0 : b[bad],
          bad < 0 ? 0 : pat(bad, seed));
    for (long i = n; i < n + GUARD; i++)
        CHECK(b[i] == SENT, "%s of %ld bytes wrote past the end (byte %ld)", what, n, i);
}
/* count_is checks a status's MPI_Count element count. */
static void count_is(MPI_Status *st, MPI_Count n, const char *what)
{
    MPI_Count c = -1;
    CHECK_OK(MPI_Get_count_c(st, MPI_BYTE, &c));
    CHECK(c == n, "%s: count %lld, want %lld", what, (long long)c, (long long)n);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Status st;
    MPI_Count count;
    MPI_Request r;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static unsigned char a[300000], b[2 * 300000 + GUARD];
    for (MPI_Count n = 1; n <= 300000; n *= 300) {
        fill(a, n, rank);
        wipe(b, n);
        CHECK_OK(MPI_Irecv_c(b, n, MPI_BYTE, left, 1, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Send_c(a, n, MPI_BYTE, right, 1, MPI_COMM_WORLD));
        CHECK_OK(MPI_Wait(&r, &st));
        CHECK_OK(MPI_Get_count_c(&st, MPI_BYTE, &count));
        CHECK(count == n, "_c transfer of %lld: count %lld", (long long)n, (long long)count);
        got(b, n, left, "Irecv_c/Send_c");
        /* Each step sends a different pattern, so that a receive that moved nothing
         * cannot pass on what the one before left. */
        fill(a, n, rank + 3);
        wipe(b, n);
        CHECK_OK(MPI_Isend_c(a, n, MPI_BYTE, right, 2, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Recv_c(b, n, MPI_BYTE, left, 2, MPI_COMM_WORLD, &st));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        count_is(&st, n, "Recv_c");
        got(b, n, left + 3, "Isend_c/Recv_c");
        fill(a, n, rank + 4);
        wipe(b, n);
        CHECK_OK(MPI_Sendrecv_c(a, n, MPI_BYTE, right, 3, b, n, MPI_BYTE, left, 3, MPI_COMM_WORLD, &st));
        count_is(&st, n, "Sendrecv_c");
        got(b, n, left + 4, "Sendrecv_c");
        fill(a, n, rank + 5);
        wipe(b, n);
        CHECK_OK(MPI_Ssend_init_c(a, n, MPI_BYTE, right, 4, MPI_COMM_WORLD, &r));
        MPI_Request rr;
        CHECK_OK(MPI_Recv_init_c(b, n, MPI_BYTE, left, 4, MPI_COMM_WORLD, &rr));
        CHECK_OK(MPI_Start(&rr));
        CHECK_OK(MPI_Start(&r));
        CHECK_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        CHECK_OK(MPI_Wait(&rr, &st));
        count_is(&st, n, "Recv_init_c");
        got(b, n, left + 5, "Ssend_init_c/Recv_init_c");
        CHECK_OK(MPI_Request_free(&r));
        CHECK_OK(MPI_Request_free(&rr));
    }
    /* Every other MPI_Count form once, on a 1000-byte message. */
    {
        MPI_Count n = 1000;
        MPI_Request rq[2];
        MPI_Message msg;
        void *bb;
        MPI_Count bsize;
        static char battach[2000 + 2 * MPI_BSEND_OVERHEAD];
        CHECK_OK(MPI_Buffer_attach_c(battach, sizeof battach));
        fill(a, n, rank + 1);
        for (int form = 0; form < 10; form++) {
            wipe(b, 2 * n); /* form 9 also receives into b + n */
            CHECK_OK(MPI_Irecv_c(b, n, MPI_BYTE, left, 20 + form, MPI_COMM_WORLD, &rq[1]));
            CHECK_OK(MPI_Sendrecv(NULL, 0, MPI_BYTE, left, 19, NULL, 0, MPI_BYTE, right, 19, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            rq[0] = MPI_REQUEST_NULL;
            switch (form) {
            case 0: CHECK_OK(MPI_Bsend_c(a, n, MPI_BYTE, right, 20, MPI_COMM_WORLD)); break;
            case 1: CHECK_OK(MPI_Ssend_c(a, n, MPI_BYTE, right, 21, MPI_COMM_WORLD)); break;
            case 2: CHECK_OK(MPI_Rsend_c(a, n, MPI_BYTE, right, 22, MPI_COMM_WORLD)); break;
            case 3: CHECK_OK(MPI_Ibsend_c(a, n, MPI_BYTE, right, 23, MPI_COMM_WORLD, &rq[0])); break;
            case 4: CHECK_OK(MPI_Issend_c(a, n, MPI_BYTE, right, 24, MPI_COMM_WORLD, &rq[0])); break;
            case 5: CHECK_OK(MPI_Irsend_c(a, n, MPI_BYTE, right, 25, MPI_COMM_WORLD, &rq[0])); break;
            case 6: CHECK_OK(MPI_Send_init_c(a, n, MPI_BYTE, right, 26, MPI_COMM_WORLD, &rq[0])); break;
            case 7: CHECK_OK(MPI_Bsend_init_c(a, n, MPI_BYTE, right, 27, MPI_COMM_WORLD, &rq[0])); break;
            case 8: CHECK_OK(MPI_Rsend_init_c(a, n, MPI_BYTE, right, 28, MPI_COMM_WORLD, &rq[0])); break;
            case 9: CHECK_OK(MPI_Isendrecv_c(a, n, MPI_BYTE, right, 29, b + n, n, MPI_BYTE, left, 29, MPI_COMM_WORLD, &rq[0])); break;
            }
            if (form == 9) {
                CHECK_OK(MPI_Send_c(a, n, MPI_BYTE, right, 29, MPI_COMM_WORLD));
            } else if (form >= 6) {
                CHECK_OK(MPI_Start(&rq[0]));
            }
            CHECK_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
            if (form >= 6 && form <= 8)
                CHECK_OK(MPI_Request_free(&rq[0]));
            /* Every form but 9 leaves b + n alone; 9 fills it too. */
            long bad = check(b, n, left + 1);
            CHECK(bad < 0, "_c form %d: byte %ld of the Irecv_c", form, bad);
            if (form == 9)
                got(b + n, n, left + 1, "Isendrecv_c");
            else
                for (long i = n; i < 2 * n; i++)
                    CHECK(b[i] == SENT, "_c form %d wrote past its message (byte %ld)", form, i);
        }
        CHECK_OK(MPI_Buffer_detach_c(&bb, &bsize));
        CHECK(bb == battach && bsize == (MPI_Count)sizeof battach, "Buffer_detach_c");
        /* Sendrecv_replace_c, Isendrecv_replace_c, Mrecv_c, Imrecv_c. */
        fill(a, n, rank + 2);
        memcpy(b, a, n);
        memset(b + n, SENT, GUARD);
        CHECK_OK(MPI_Sendrecv_replace_c(b, n, MPI_BYTE, right, 30, left, 30, MPI_COMM_WORLD, &st));
        count_is(&st, n, "Sendrecv_replace_c");
        got(b, n, left + 2, "Sendrecv_replace_c");
        fill(a, n, rank + 6);
        memcpy(b, a, n);
        CHECK_OK(MPI_Isendrecv_replace_c(b, n, MPI_BYTE, right, 31, left, 31, MPI_COMM_WORLD, &r));
        CHECK_OK(MPI_Wait(&r, &st));
        count_is(&st, n, "Isendrecv_replace_c");
        got(b, n, left + 6, "Isendrecv_replace_c");
        fill(a, n, rank + 7);
        wipe(b, n);
        CHECK_OK(MPI_Isend_c(a, n, MPI_BYTE, right, 32, MPI_COMM_WORLD, &rq[0]));
        CHECK_OK(MPI_Mprobe(left, 32, MPI_COMM_WORLD, &msg, &st));
        CHECK_OK(MPI_Mrecv_c(b, n, MPI_BYTE, &msg, &st));
        count_is(&st, n, "Mrecv_c");
        got(b, n, left + 7, "Mrecv_c");
        CHECK_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
        fill(a, n, rank + 8);
        wipe(b, n);
        CHECK_OK(MPI_Isend_c(a, n, MPI_BYTE, right, 33, MPI_COMM_WORLD, &rq[0]));
        CHECK_OK(MPI_Mprobe(left, 33, MPI_COMM_WORLD, &msg, &st));
        CHECK_OK(MPI_Imrecv_c(b, n, MPI_BYTE, &msg, &rq[1]));
        MPI_Status sts[2];
        CHECK_OK(MPI_Waitall(2, rq, sts));
        count_is(&sts[1], n, "Imrecv_c");
        got(b, n, left + 8, "Imrecv_c");
    }
    /* A count beyond INT_MAX of an empty type. */
    MPI_Datatype empty;
    CHECK_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
    CHECK_OK(MPI_Type_commit(&empty));
    MPI_Count big = 3000000000LL;
    CHECK_OK(MPI_Irecv_c(b, big, empty, left, 9, MPI_COMM_WORLD, &r));
    CHECK_OK(MPI_Send_c(a, big, empty, right, 9, MPI_COMM_WORLD));
    CHECK_OK(MPI_Wait(&r, &st));
    CHECK_OK(MPI_Get_count_c(&st, MPI_BYTE, &count));
    CHECK(count == 0, "empty-type count %lld", (long long)count);
    MPI_Type_free(&empty);
    CHECK_OK(MPI_Finalize());
    return 0;
}

/* Threadcomm life cycle: repeated start/finish, MPI_Comm_dup inside the region,
 * per-thread attributes whose delete callbacks run once per thread at finish,
 * MPIX_Comm_test_threadcomm, and the misuse errors (inactive use, wrong thread count,
 * start twice, nested regions, free while active, unsupported constructors). */
#include <omp.h>
#include "mpix_test.h"
#include <mpix.h>

#define NT 4

static int deletes;

static int del_fn(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)extra;
    CHECK(*(int *)val >= 0, "attribute value");
#pragma omp atomic
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int provided, nprocs;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    /* Errors on a threadcomm handle that does not resolve go to MPI_COMM_WORLD's handler. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm tc, other;
    CHECK_CLASS(MPIX_Threadcomm_init(MPI_COMM_WORLD, 0, &tc), MPI_ERR_ARG);
    /* One process's bad num_threads fails every process's init, none waits. */
    int wrank;
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    CHECK_CLASS(MPIX_Threadcomm_init(MPI_COMM_WORLD, wrank == 0 ? -3 : 2, &tc), MPI_ERR_ARG);
    CHECK_OK(MPIX_Threadcomm_init(MPI_COMM_WORLD, NT, &tc));
    CHECK_OK(MPI_Threadcomm_init(MPI_COMM_WORLD, NT, &other));
    int flag = -1;
    CHECK_OK(MPIX_Comm_test_threadcomm(tc, &flag));
    CHECK(flag == 1, "test_threadcomm(tc) = %d", flag);
    CHECK_OK(MPIX_Comm_test_threadcomm(MPI_COMM_WORLD, &flag));
    CHECK(flag == 0, "test_threadcomm(world) = %d", flag);

    /* Inactive: any use but start/free fails with MPI_ERR_COMM. */
    int x = 0, size;
    CHECK_CLASS(MPI_Comm_size(tc, &size), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Send(&x, 1, MPI_INT, 0, 0, tc), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Barrier(tc), MPI_ERR_COMM);

    int keyval;
    CHECK_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, del_fn, &keyval, NULL));

    for (int round = 0; round < 20; round++) {
        deletes = 0;
#pragma omp parallel num_threads(NT)
        {
            int rank, tsize, f;
            CHECK_OK(MPIX_Threadcomm_start(tc));
            MPI_Comm_set_errhandler(tc, MPI_ERRORS_RETURN);
            CHECK_OK(MPI_Comm_rank(tc, &rank));
            CHECK_OK(MPI_Comm_size(tc, &tsize));
            CHECK(tsize == NT * nprocs, "size %d", tsize);
            /* Misuse inside the region. */
            CHECK_CLASS(MPIX_Threadcomm_start(tc), MPI_ERR_OTHER);    /* twice on one thread */
            CHECK_CLASS(MPIX_Threadcomm_start(other), MPI_ERR_OTHER); /* nested threadcomm */
            MPI_Comm sub;
            CHECK_CLASS(MPI_Comm_split(tc, 0, 0, &sub), MPI_ERR_COMM);
            if (omp_get_thread_num() == 0) {
                MPI_Comm copy = tc;
                CHECK_CLASS(MPIX_Threadcomm_free(&copy), MPI_ERR_COMM); /* free while active */
            }
            /* Per-thread attributes: each thread sees only its own value. */
            int *mine = malloc(sizeof(int)), *got;
            *mine = rank;
            CHECK_OK(MPI_Comm_set_attr(tc, keyval, mine));
            CHECK_OK(MPI_Barrier(tc));
            CHECK_OK(MPI_Comm_get_attr(tc, keyval, &got, &f));
            CHECK(f && got == mine && *got == rank, "attribute is per thread");
            /* A duplicate is an active threadcomm with the same ranks. */
            MPI_Comm dup, dup2;
            CHECK_OK(MPI_Comm_dup(tc, &dup));
            CHECK_OK(MPIX_Comm_test_threadcomm(dup, &f));
            CHECK(f == 1, "dup is a threadcomm");
            int drank, sum;
            CHECK_OK(MPI_Comm_rank(dup, &drank));
            CHECK(drank == rank, "dup rank %d vs %d", drank, rank);
            CHECK_OK(MPI_Comm_get_attr(dup, keyval, &got, &f));
            CHECK(!f, "NULL copy function: no attribute on the duplicate");
            CHECK_OK(MPI_Comm_set_attr(dup, keyval, mine));
            CHECK_OK(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, dup));
            CHECK(sum == tsize * (tsize - 1) / 2, "allreduce on dup %d", sum);
            int next = (rank + 1) % tsize, prev = (rank + tsize - 1) % tsize, v = -1;
            CHECK_OK(MPI_Sendrecv(&rank, 1, MPI_INT, next, 0, &v, 1, MPI_INT, prev, 0, dup, MPI_STATUS_IGNORE));
            CHECK(v == prev, "sendrecv on dup got %d", v);
            /* A second duplicate, freed inside the region. */
            CHECK_OK(MPI_Comm_dup(dup, &dup2));
            CHECK_OK(MPI_Barrier(dup2));
            CHECK_OK(MPI_Comm_free(&dup2));
            CHECK(dup2 == MPI_COMM_NULL, "free resets the handle");
            CHECK_CLASS(MPIX_Threadcomm_finish(dup), MPI_ERR_COMM); /* finish needs the started one */
            CHECK_OK(MPIX_Threadcomm_finish(tc));
            /* After finish the threadcomm is inactive for this thread. */
            CHECK_CLASS(MPI_Comm_rank(tc, &rank), MPI_ERR_COMM);
            free(mine);
        }
        /* Two attributes (threadcomm and dup) per thread, each deleted once. */
        CHECK(deletes == 2 * NT, "round %d: %d delete callbacks, want %d", round, deletes, 2 * NT);
    }

    /* Wrong number of threads: the OpenMP team is smaller than num_threads. */
    int wrong = 0;
#pragma omp parallel num_threads(NT - 1)
    {
        int rc = MPIX_Threadcomm_start(tc);
        if (mpix_test_class(rc) == MPI_ERR_OTHER)
#pragma omp atomic
            wrong++;
    }
    CHECK(wrong == NT - 1, "%d of %d threads got MPI_ERR_OTHER for a wrong team size", wrong, NT - 1);
    /* A team of one is a parallel region too (an inactive one): refused, not a hang. */
#pragma omp parallel num_threads(1)
    CHECK_CLASS(MPIX_Threadcomm_start(tc), MPI_ERR_OTHER);

    /* Threads of a nested region do not inherit the threadcomm. */
    omp_set_max_active_levels(2);
    int outsiders = 0;
#pragma omp parallel num_threads(NT)
    {
        CHECK_OK(MPIX_Threadcomm_start(tc));
#pragma omp parallel num_threads(2)
        {
            int r;
            if (omp_get_thread_num() == 1) {
                if (mpix_test_class(MPI_Comm_rank(tc, &r)) == MPI_ERR_COMM)
#pragma omp atomic
                    outsiders++;
            }
        }
        CHECK_OK(MPIX_Threadcomm_finish(tc));
    }
    CHECK(outsiders == NT, "%d nested threads were refused, want %d", outsiders, NT);

    CHECK_CLASS(MPI_Comm_free(&tc), MPI_ERR_COMM); /* threadcomms go with MPIX_Threadcomm_free */
    CHECK_OK(MPIX_Threadcomm_free(&tc));
    CHECK_OK(MPI_Threadcomm_free(&other));
    CHECK_CLASS(MPIX_Threadcomm_free(&tc), MPI_ERR_COMM); /* MPI_COMM_NULL now */
    MPI_Comm_free_keyval(&keyval);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
        printf("tc_lifecycle ok\n");
    MPI_Finalize();
    return 0;
}

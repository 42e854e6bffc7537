/* threads: MPI_Init_thread at every level; MPI_Is_thread_main from another thread;
 * concurrent calls from several threads at MPI_THREAD_MULTIPLE.
 * Usage: threads LEVEL (0..3) */
#include <pthread.h>
#include "mpix_test.h"

#define NTHREADS 8
static int results[NTHREADS];

static void *worker(void *arg)
{
    int i = (int)(long)arg, is_main = -1, rank, len;
    char s[MPI_MAX_ERROR_STRING];
    MPI_Is_thread_main(&is_main);
    for (int k = 0; k < 1000; k++) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Error_string(MPI_ERR_RANK, s, &len);
    }
    results[i] = is_main == 0 ? 1 : -1;
    return NULL;
}

int main(int argc, char **argv)
{
    int required = argc > 1 ? atoi(argv[1]) : MPI_THREAD_MULTIPLE, provided = -1, q;
    CHECK_OK(MPI_Init_thread(&argc, &argv, required, &provided));
    CHECK(provided == required, "asked for %d, provided %d", required, provided);
    CHECK_OK(MPI_Query_thread(&q));
    CHECK(q == provided, "MPI_Query_thread %d, provided %d", q, provided);

    char val[MPI_MAX_INFO_VAL];
    int flag, buflen = sizeof val;
    static const char *names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                  "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    CHECK_OK(MPI_Info_get_string(MPI_INFO_ENV, "thread_level", &buflen, val, &flag));
    CHECK(flag && strcmp(val, names[provided]) == 0, "thread_level '%s'", val);

    int nthreads = provided == MPI_THREAD_MULTIPLE ? NTHREADS : 1;
    pthread_t t[NTHREADS];
    for (long i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, worker, (void *)i);
    for (int i = 0; i < nthreads; i++) {
        pthread_join(t[i], NULL);
        CHECK(results[i] == 1, "thread %d: MPI_Is_thread_main was not false", i);
    }
    CHECK_OK(MPI_Finalize());
    return 0;
}

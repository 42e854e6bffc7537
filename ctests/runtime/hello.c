/* hello: MPI_Init/Finalize and the runtime queries on every rank.
 * Usage: hello EXPECTED_SIZE */
#include <unistd.h>
#include "mpix_test.h"

int main(int argc, char **argv)
{
    int flag, rank, size, version, subversion, len, provided, is_main;
    char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int want = argc > 1 ? atoi(argv[1]) : -1;

    CHECK_OK(MPI_Initialized(&flag));
    CHECK(!flag, "MPI_Initialized is true before MPI_Init");
    CHECK_OK(MPI_Get_version(&version, &subversion)); /* allowed before MPI_Init */
    CHECK(version == 4 && subversion == 1, "version %d.%d", version, subversion);

    CHECK_OK(MPI_Init(&argc, &argv));
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(flag, "MPI_Initialized is false after MPI_Init");
    CHECK_OK(MPI_Finalized(&flag));
    CHECK(!flag, "MPI_Finalized is true before MPI_Finalize");

    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    CHECK(want < 0 || size == want, "size %d, want %d", size, want);
    CHECK(rank >= 0 && rank < size, "rank %d of %d", rank, size);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    CHECK(rank == 0, "rank %d in MPI_COMM_SELF", rank);
    CHECK_OK(MPI_Comm_size(MPI_COMM_SELF, &size));
    CHECK(size == 1, "size %d of MPI_COMM_SELF", size);
    CHECK_OK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CHECK_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));

    CHECK_OK(MPI_Query_thread(&provided));
    CHECK(provided == MPI_THREAD_SINGLE, "MPI_Init provided %d", provided);
    CHECK_OK(MPI_Is_thread_main(&is_main));
    CHECK(is_main, "the thread that called MPI_Init is not main");

    CHECK_OK(MPI_Get_processor_name(name, &len));
    CHECK(len > 0 && (int)strlen(name) == len, "processor name '%s' len %d", name, len);
    CHECK_OK(MPI_Get_library_version(lib, &len));
    CHECK(strncmp(lib, "mpix", 4) == 0 && (int)strlen(lib) == len, "library version '%s'", lib);

    double t0 = MPI_Wtime(), tick = MPI_Wtick();
    usleep(10000);
    double t1 = MPI_Wtime();
    CHECK(tick > 0 && tick < 1e-3, "MPI_Wtick %g", tick);
    CHECK(t1 - t0 >= 0.009 && t1 - t0 < 5, "MPI_Wtime advanced %g s over a 10 ms sleep", t1 - t0);

    void *mem = NULL;
    CHECK_OK(MPI_Alloc_mem(1 << 20, MPI_INFO_NULL, &mem));
    CHECK(mem != NULL && ((unsigned long)mem % 64) == 0, "MPI_Alloc_mem gave %p", mem);
    memset(mem, 0xab, 1 << 20);
    CHECK_OK(MPI_Free_mem(mem));

    char cname[MPI_MAX_OBJECT_NAME];
    CHECK_OK(MPI_Comm_get_name(MPI_COMM_WORLD, cname, &len));
    CHECK(strcmp(cname, "MPI_COMM_WORLD") == 0, "name '%s'", cname);

    printf("hello from rank %d of %d on %s\n", rank, size, name);
    CHECK_OK(MPI_Finalize());
    CHECK_OK(MPI_Finalized(&flag));
    CHECK(flag, "MPI_Finalized is false after MPI_Finalize");
    CHECK_OK(MPI_Initialized(&flag));
    CHECK(flag, "MPI_Initialized is false after MPI_Finalize");
    return 0;
}

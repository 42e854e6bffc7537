// A job started by a launcher other than mpixexec (Hydra over PMI-1 or PMI-2,
// srun --mpi=pmi2 or --mpi=pmix, Open MPI's mpirun over PMIx): the ranks
// communicate and check the results, and the node-local communicator holds
// every rank (all run on this host, and the launcher said so), or as many as
// the second argument says (a launcher told that the job spans pretend hosts
// splits it into nodes, and mpix follows it).
//
// Usage: pmi_job EXPECTED_SIZE [EXPECTED_NODE_SIZE]. Prints "pmi-ok rank R of N (PMI env: ...)"
// on success; on a wrong result it prints why and aborts.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                 \
	do {                                                                             \
		if (!(cond)) {                                                           \
			fprintf(stderr, "pmi_job: rank %d: ", rank);                       \
			fprintf(stderr, __VA_ARGS__);                                    \
			fprintf(stderr, "\n");                                           \
			MPI_Abort(MPI_COMM_WORLD, 2);                                    \
		}                                                                        \
	} while (0)

int main(int argc, char **argv)
{
	int rank = -1, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int want = argc > 1 ? atoi(argv[1]) : size;
	CHECK(size == want, "size %d, expected %d (started as singletons?)", size, want);

	// Ring: each rank sends its rank to the next.
	int next = (rank + 1) % size, prev = (rank + size - 1) % size, got = -1;
	MPI_Sendrecv(&rank, 1, MPI_INT, next, 7, &got, 1, MPI_INT, prev, 7, MPI_COMM_WORLD,
		     MPI_STATUS_IGNORE);
	CHECK(got == prev, "ring got %d from rank %d", got, prev);

	long sum = 0, me = rank + 1;
	MPI_Allreduce(&me, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	CHECK(sum == (long)size * (size + 1) / 2, "allreduce sum %ld", sum);

	int buf[64];
	for (int i = 0; i < 64; i++)
		buf[i] = rank == 0 ? i * 3 : -1;
	MPI_Bcast(buf, 64, MPI_INT, 0, MPI_COMM_WORLD);
	for (int i = 0; i < 64; i++)
		CHECK(buf[i] == i * 3, "bcast element %d = %d", i, buf[i]);

	MPI_Comm node;
	int nsize;
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
	MPI_Comm_size(node, &nsize);
	int want_node = argc > 2 ? atoi(argv[2]) : size;
	CHECK(nsize == want_node, "node-local communicator of %d ranks, expected %d", nsize, want_node);
	MPI_Comm_free(&node);

	const char *mode = getenv("PMIX_NAMESPACE") ? "PMIx"
			   : getenv("PMI_JOBID")    ? "PMI_JOBID"
			   : getenv("PMI_FD")       ? "PMI_FD"
			   : getenv("PMI_PORT")     ? "PMI_PORT"
						    : "none";
	printf("pmi-ok rank %d of %d (PMI env: %s) node of %d\n", rank, size, mode, nsize);
	MPI_Finalize();
	return 0;
}

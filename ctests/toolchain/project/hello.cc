// hello.c in C++: the C++ wrapper and the build systems' C++ MPI detection.
#include <mpi.h>

#include <cstdlib>
#include <iostream>
#include <string>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, len;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_library_version(lib, &len);
    int want = argc > 1 ? std::atoi(argv[1]) : size;
    if (std::string(lib).rfind("mpix ", 0) != 0 || size != want) {
        std::cerr << "rank " << rank << " of " << size << " runs on \"" << lib << "\", not mpix\n";
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2)
        MPI_Abort(MPI_COMM_WORLD, 1);
    std::cout << "toolchain-ok C++ rank " << rank << " of " << size << ": " << lib << "\n";
    MPI_Finalize();
    return 0;
}

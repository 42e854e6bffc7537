/* h5par: a parallel-HDF5 program built against Debian's MPICH build of HDF5
 * (libhdf5-mpich-dev) with MPICH's mpicc, run on mpix through LD_LIBRARY_PATH by
 * hdf5.sh: H5Pset_fapl_mpio, a 2-D dataset of ints, each rank a block of NX rows, written
 * and read back with collective transfers (H5FD_MPIO_COLLECTIVE); every element checked. */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#define NX 8
#define NY 6
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *name = argc > 1 ? argv[1] : "h5par.h5";
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hsize_t dims[2] = {NX * size, NY};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "grid", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t start[2] = {NX * rank, 0}, count[2] = {NX, NY};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    hid_t mem = H5Screate_simple(2, count, NULL);
    int buf[NX][NY];
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            buf[i][j] = (NX * rank + i) * 100 + j;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    herr_t w = H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, buf);
    int back[NX][NY] = {{0}};
    herr_t r = H5Dread(dset, H5T_NATIVE_INT, mem, space, dxpl, back);
    int bad = 0;
    for (int i = 0; i < NX; i++)
        for (int j = 0; j < NY; j++)
            bad += back[i][j] != buf[i][j];
    H5Pclose(dxpl); H5Sclose(mem); H5Sclose(space); H5Dclose(dset); H5Fclose(file); H5Pclose(fapl);
    int total;
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("h5par: write %d read %d, %d wrong elements of %d\n", (int)w, (int)r, total, NX * NY * size);
    MPI_Finalize();
    return (w < 0 || r < 0 || total) ? 1 : 0;
}

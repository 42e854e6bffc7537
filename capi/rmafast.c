/* The shim's fast paths of one-sided communication: rma/fast.c serves them (rma.h). */
#include "capi.h"
#include "zfast.h"
#include "rma.h"

int mpix_fast_MPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return mpix_rma_fast_put(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                             target_datatype, win);
}

int mpix_fast_MPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                      MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return mpix_rma_fast_get(origin_addr, origin_count, origin_datatype, target_rank, target_disp, target_count,
                             target_datatype, win);
}

int mpix_fast_MPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                             int target_rank, MPI_Aint target_disp, int target_count,
                             MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return mpix_rma_fast_accumulate(origin_addr, origin_count, origin_datatype, target_rank, target_disp,
                                    target_count, target_datatype, op, win);
}

int mpix_fast_MPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                                 void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                                 MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                                 MPI_Win win)
{
    return mpix_rma_fast_get_accumulate(origin_addr, origin_count, origin_datatype, result_addr, result_count,
                                        result_datatype, target_rank, target_disp, target_count, target_datatype, op,
                                        win);
}

int mpix_fast_MPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank,
                               MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    return mpix_rma_fast_fetch_and_op(origin_addr, result_addr, datatype, target_rank, target_disp, op, win);
}

int mpix_fast_MPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                                   MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win)
{
    return mpix_rma_fast_compare_and_swap(origin_addr, compare_addr, result_addr, datatype, target_rank,
                                          target_disp, win);
}

int mpix_fast_MPI_Win_flush(int rank, MPI_Win win) { return mpix_rma_fast_flush(rank, win); }
int mpix_fast_MPI_Win_flush_local(int rank, MPI_Win win) { return mpix_rma_fast_flush(rank, win); }
int mpix_fast_MPI_Win_flush_all(MPI_Win win) { return mpix_rma_fast_flush_all(win); }
int mpix_fast_MPI_Win_flush_local_all(MPI_Win win) { return mpix_rma_fast_flush_all(win); }

/* Threadcomm helpers that need the OpenMP runtime, if the program has one. */
#include "threadcomm.h"

/* Weak: resolved when the program links an OpenMP runtime, NULL otherwise. */
extern int omp_get_num_threads(void) __attribute__((weak));
extern int omp_get_level(void) __attribute__((weak));

/* mpix_omp_team_size is the size of the calling thread's OpenMP team, or -1 when the
 * program has no OpenMP runtime or the thread is outside a parallel region (then the
 * thread count cannot be checked at MPIX_Threadcomm_start: the threads may be
 * pthreads). A team of one thread counts: omp_get_level sees the region even when
 * it is inactive, where omp_in_parallel says no. */
int mpix_omp_team_size(void)
{
    if (omp_get_num_threads == NULL || omp_get_level == NULL || omp_get_level() == 0)
        return -1;
    return omp_get_num_threads();
}

package threadcomm

/*
#include "threadcomm.h"
static uint64_t mpix_tc_teams_get(int i) { return __atomic_load_n(&mpix_tc_teams[i], __ATOMIC_RELAXED); }
*/
import "C"

import (
	"mpix/core/cvar"
	"mpix/core/pvar"
)

// tcTeams is the MPI_T performance variable mpix_threadcomm_c_teams: how many
// threadcomm states the C queues made (region.c: mpix_tc_act_new), element 0
// those whose reductions go through the shared counter, element 1 those with
// per-thread seats (MPIX_THREADCOMM_SEATS). Both stay 0 with MPIX_FASTPATH=0, where
// threadcomm traffic goes through Go; tests read it to know which path they ran.
var tcTeams = pvar.Register(pvar.Spec{
	Name:       "mpix_threadcomm_c_teams",
	Desc:       "threadcomm states made in C, reducing through the shared counter (element 0) and through per-thread seats (element 1)",
	Class:      pvar.Counter,
	Verbosity:  cvar.TunerDetail,
	Category:   cvar.Progress,
	Continuous: true,
	Readonly:   true,
	Count:      func() int { return 2 },
	Read: func(dst []uint64) {
		for i := range dst {
			dst[i] = uint64(C.mpix_tc_teams_get(C.int(i)))
		}
	},
})

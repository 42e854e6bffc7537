package core

import (
	"runtime"
	"sync/atomic"
	"time"
)

// The progress thread (MPIX_ASYNC_PROGRESS=1): one goroutine, on an OS thread of its
// own, that polls every VCI while the process computes outside MPI, so that operations
// a peer's engine must apply here (one-sided operations from other nodes, or from
// every peer under MPIX_SHM=0) complete without waiting for this process's next MPI
// call. It backs off to a short sleep when nothing arrives, so an idle job costs
// little; a busy one pays a core's share, which is the trade MPICH's
// MPIR_CVAR_ASYNC_PROGRESS makes too.

var async struct {
	run  atomic.Bool
	done chan struct{}
}

// asyncIdle is how long the progress thread sleeps after asyncSpins empty rounds.
const (
	asyncSpins = 256
	asyncIdle  = 20 * time.Microsecond
)

func startAsyncProgress() {
	async.run.Store(true)
	async.done = make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer close(async.done)
		empty := 0
		for async.run.Load() {
			if Progress() > 0 {
				empty = 0
				continue
			}
			if empty++; empty >= asyncSpins {
				time.Sleep(asyncIdle)
			} else {
				runtime.Gosched()
			}
		}
	}()
}

// stopAsyncProgress ends the progress thread before MPI_Finalize tears down the
// transports it polls.
func stopAsyncProgress() {
	if async.done == nil {
		return
	}
	async.run.Store(false)
	<-async.done
	async.done = nil
}

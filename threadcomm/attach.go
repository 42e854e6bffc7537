package threadcomm

/*
#include "threadcomm.h"
#include "fastabi.h"
*/
import "C"

import (
	"sync/atomic"
	"unsafe"

	"mpix/core"
)

// The calling thread's place in its threadcomms is C thread-local state
// (mpix_tc_self, threadcomm.h): capi's thread context points at it and passes it here
// as self, so that reading it costs no crossing.

func selfOf(p unsafe.Pointer) *C.mpix_tc_self { return (*C.mpix_tc_self)(p) }

// Key is the activation key of the threadcomm the thread is in (0: none).
func Key(self unsafe.Pointer) uint64 { return uint64(selfOf(self).key) }

// Resolve resolves a communicator handle; a threadcomm gives the calling thread's view
// of it (an error if the thread is not in its active region).
//
// It is also how the data plane learns that a region used Go: between regions run in
// C, Go's activation of a single-process threadcomm is kept (parked) for the next
// start, so anything Go derives from it during a region (attributes, duplicates,
// groups, error handlers) would outlive the region. The first resolution in a region
// marks it; the region's finish then goes through Go, which ends the activation.
func Resolve(self unsafe.Pointer, h int32) (*core.Comm, error) {
	c, err := core.LookupComm(h)
	if err != nil || !c.IsThreadcomm() {
		return c, err
	}
	s := selfOf(self)
	if p := core.ThreadcommExtOf(c); p != nil {
		t := (*C.mpix_tc_team)(p)
		state := (*uint32)(unsafe.Pointer(&t.state))
		dirty := (*uint32)(unsafe.Pointer(&t.dirty))
		switch atomic.LoadUint32(state) {
		case C.MPIX_TC_PARKED:
			// A region C started leaves the state parked: the thread is in it if its
			// state holds the activation.
			if s.act != p {
				return nil, core.ErrThreadcommInactive(c)
			}
			fallthrough
		case C.MPIX_TC_ACTIVE:
			if atomic.LoadUint32(dirty) == 0 {
				atomic.StoreUint32(dirty, 1)
			}
		}
	}
	return core.ThreadView(c, uint64(s.key), int(s.thread))
}

// Init is MPIX_Threadcomm_init.
func Init(self unsafe.Pointer, comm *core.Comm, nthreads int) (*core.Comm, error) {
	if selfOf(self).key != 0 {
		return nil, core.Errorf(core.ErrOther, "MPIX_Threadcomm_init must be called outside the parallel region of an active threadcomm")
	}
	return core.ThreadcommInit(comm, nthreads)
}

// Start is MPIX_Threadcomm_start through Go (the first region of a threadcomm, and
// every region of one that spans processes; later regions of a single-process one
// start in C).
func Start(self unsafe.Pointer, threadcomm *core.Comm) error {
	if !threadcomm.IsThreadcomm() {
		return core.Errorf(core.ErrComm, "communicator is not a threadcomm (make one with MPIX_Threadcomm_init)")
	}
	s := selfOf(self)
	// With an OpenMP runtime, a team whose size differs from num_threads would leave
	// the threads waiting for each other forever: refuse at once.
	if team := int(C.mpix_omp_team_size()); team > 0 && team != core.ThreadcommThreads(threadcomm) && s.key == 0 {
		return core.Errorf(core.ErrOther, "MPIX_Threadcomm_start from a team of %d threads, but the threadcomm was made for %d", team, core.ThreadcommThreads(threadcomm))
	}
	key, thread, err := core.ThreadcommStart(threadcomm, uint64(s.key))
	if err != nil {
		return err
	}
	s.key, s.thread = C.uint64_t(key), C.int32_t(thread)
	attach(s, threadcomm, thread)
	return nil
}

// attach moves the thread's messages to the C queues when the C fast paths are on
// (MPIX_FASTPATH): those between threads of this process, and when the threadcomm
// spans processes, those the others send to it too, which the engine forwards
// (sink), so that each thread matches everything it receives in one place. Its sends
// to other processes stay with the engine.
func attach(s *C.mpix_tc_self, h *core.Comm, thread int) {
	if C.mpix_fast_table == nil || C.mpix_fast_table.enabled == 0 {
		return
	}
	v, err := core.ThreadView(h, uint64(s.key), thread)
	if err != nil {
		return
	}
	n := core.ThreadcommThreads(h)
	act := core.ThreadcommExt(v, func() unsafe.Pointer {
		return unsafe.Pointer(C.mpix_tc_act_new(C.int(n), C.MPI_Comm(h.Handle), C.int(core.ThreadcommBase(h)), C.int(h.Size)))
	})
	if act == nil {
		return
	}
	core.SetThreadIdle(idle)
	if !core.ThreadcommSingleProcess(h) {
		core.ThreadcommForward(v, sink{act: (*C.mpix_tc_act)(act)})
	}
	C.mpix_tc_act_activate((*C.mpix_tc_act)(act), s.key)
	s.act, s.handle = act, C.MPI_Comm(h.Handle)
	// Go numbered the threads: each takes the seat of its index (region.c's take_seat
	// is for regions started in C).
	s.seat, s.seat_act = C.int32_t(thread), act
	core.SetLocalP2P(v, local{handle: C.MPI_Comm(h.Handle)})
}

// Finish is the Go half of MPIX_Threadcomm_finish, after capi deleted the attributes
// derived from the activation.
func Finish(self unsafe.Pointer, threadcomm *core.Comm) error {
	if err := core.ThreadcommFinish(threadcomm); err != nil {
		return err
	}
	// The C queues were emptied by the C finish's barrier, which ran first
	// (region.c: tc_finish) and sent this region here; they stay for the next one.
	s := selfOf(self)
	s.act, s.handle = nil, 0
	s.key, s.thread = 0, -1
	return nil
}

// Free is MPIX_Threadcomm_free.
func Free(c *core.Comm) error {
	act := (*C.mpix_tc_act)(core.ThreadcommExtOf(c))
	if act != nil {
		// A region that ended in C left Go's activation parked: end it now, so that
		// free sees the threadcomm inactive (a running region, in C or Go, still
		// fails).
		t := (*C.mpix_tc_team)(unsafe.Pointer(act))
		if atomic.LoadUint32((*uint32)(unsafe.Pointer(&t.state))) == C.MPIX_TC_PARKED && C.mpix_tc_act_running(act) == 0 {
			core.ThreadcommEndParked(c)
			atomic.StoreUint32((*uint32)(unsafe.Pointer(&t.state)), C.MPIX_TC_GO)
		}
	}
	if err := core.ThreadcommFree(c); err != nil {
		return err
	}
	if act != nil {
		C.mpix_tc_act_free(act)
	}
	return nil
}

// sink is core.RemoteSink over the C queues: the engine pushes what other processes
// send to this process's threads (under its lock, from any thread).
type sink struct{ act *C.mpix_tc_act }

func (s sink) Eager(thread, src, tag int, data []byte) bool {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	return C.mpix_tc_push_eager(s.act, C.int(thread), C.int(src), C.int(tag), p, C.int64_t(len(data))) != 0
}

func (s sink) Message(thread, src, tag int, size int64, msg int32) {
	C.mpix_tc_push_msg(s.act, C.int(thread), C.int(src), C.int(tag), C.int64_t(size), C.int32_t(msg))
}

func (s sink) Purge() { C.mpix_tc_purge(s.act) }

func (s sink) Settle() { C.mpix_tc_settle(s.act) }

// idle is core's hook for a thread waiting in Go: it takes the messages for its
// receives posted in C (mpix_tc_idle).
func idle() bool { return C.mpix_tc_idle() != 0 }

// local is core.LocalP2P over the C queues, for calls the C fast paths leave to Go.
// It runs on the calling thread, whose state the C reads.
type local struct{ handle C.MPI_Comm }

func (l local) Send(data []byte, dest, tag int, sync bool) error {
	var p unsafe.Pointer
	if len(data) > 0 {
		p = unsafe.Pointer(&data[0])
	}
	s := C.int(0)
	if sync {
		s = 1
	}
	if rc := C.mpix_tc_send_bytes(l.handle, p, C.int64_t(len(data)), C.int(dest), C.int(tag), s); rc != 0 {
		return core.Errorf(int(rc), "threadcomm send between threads failed")
	}
	return nil
}

func (l local) Recv(buf []byte, source, tag int) (core.Status, error) {
	var p unsafe.Pointer
	if len(buf) > 0 {
		p = unsafe.Pointer(&buf[0])
	}
	var st C.MPI_Status
	rc := C.mpix_tc_recv_bytes(l.handle, p, C.int64_t(len(buf)), C.int(source), C.int(tag), &st)
	s := Status(unsafe.Pointer(&st))
	if rc != 0 {
		s.Error = int(rc)
		return s, core.Errorf(int(rc), "message truncated: %d bytes sent, receive buffer holds %d", s.Bytes, len(buf))
	}
	return s, nil
}

func (l local) Probe(source, tag int, block bool) (bool, core.Status) {
	var st C.MPI_Status
	b := C.int(0)
	if block {
		b = 1
	}
	found := C.mpix_tc_probe(l.handle, C.int(source), C.int(tag), b, &st) == 1
	return found, Status(unsafe.Pointer(&st))
}

// Status reads an MPI_Status the C filled in (MPICH's layout: the count's high bits
// share a word with the cancelled flag).
func Status(p unsafe.Pointer) core.Status {
	st := (*C.MPI_Status)(p)
	bytes := int64(uint32(st.count_hi_and_cancelled)>>1)<<32 | int64(uint32(st.count_lo))
	return core.Status{Source: int(st.MPI_SOURCE), Tag: int(st.MPI_TAG), Bytes: bytes, Cancelled: st.count_hi_and_cancelled&1 != 0}
}

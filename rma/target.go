package rma

import (
	"math"
	"unsafe"

	"golang.org/x/sys/unix"

	"mpix/core"
	"mpix/core/datatype"
)

// run is a contiguous piece of a target's window memory: an address in the target's
// address space and a length.
type run struct {
	addr uint64
	n    int64
}

// where says how an operation reaches the runs targetRuns returned: through
// process_vm_readv/writev of process cma, or, when cma is 0, by loads and stores at
// addresses of this process. st is the target's state page (its accumulate lock).
//
// atomics says the memory is shareable (atomic.go): accumulates on it use CPU atomics
// where the type and op allow. viaAM says this process cannot do that (it reaches
// shareable memory with process_vm_writev only): accumulates go to the target's engine.
type where struct {
	cma     int
	st      state
	atomics bool
	viaAM   bool
}

// targetRuns lists the memory that count elements of t at displacement disp occupy in
// tg's window, and checks it lies inside the window: a displacement that strays
// outside is MPI_ERR_RMA_RANGE here, before any memory is touched. For targets this
// process reaches itself, the runs come back translated to where it reaches them; for
// active-message targets they stay the target's addresses (and a dynamic window's are
// checked by the target, am.go).
func (w *window) targetRuns(tg *target, disp int64, count int64, t *datatype.Type, buf []run) ([]run, where, error) {
	if disp < 0 && w.flavor != FlavorDynamic {
		return nil, where{}, core.Errorf(core.ErrDisp, "target displacement %d is negative", disp)
	}
	start := disp // dynamic: an address (MPI_Get_address at the target), displacement unit 1
	if w.flavor != FlavorDynamic {
		// base + disp*dispUnit must not overflow: a product that wraps lands back
		// inside the window (disp 1<<62 with unit 4 is displacement 0).
		if tg.dispUnit > 0 && disp > (math.MaxInt64-int64(tg.base))/tg.dispUnit {
			return nil, where{}, core.Errorf(core.ErrRMARange, "target displacement %d (unit %d) is outside the window of %d bytes", disp, tg.dispUnit, tg.size)
		}
		start = int64(tg.base) + disp*tg.dispUnit
	}
	runs := buf[:0]
	bad := false
	datatype.Runs(count, t, func(off, n int64) bool {
		a := start + off
		if a < 0 || (off < 0) != (a < start) { // below 0, or the sum wrapped
			bad = true
			return false
		}
		runs = append(runs, run{uint64(a), n})
		return true
	})
	if bad {
		return nil, where{}, core.Errorf(core.ErrRMARange, "target displacement %d reaches outside the address space", disp)
	}
	at := where{st: tg.st}
	if w.flavor == FlavorDynamic {
		if tg.st.p == nil {
			return runs, at, nil // the target checks (am.go)
		}
		var rbuf [16]region
		rs := tg.st.regions(rbuf[:0])
		shared, plain := 0, 0
		for _, x := range runs {
			i := regionOf(rs, x.addr, uint64(x.n))
			if i < 0 {
				return nil, where{}, core.Errorf(core.ErrRMARange, "target address %#x (%d bytes) is not in memory attached to the dynamic window", x.addr, x.n)
			}
			if rs[i].memfd > 0 {
				shared++
			} else {
				plain++
			}
		}
		// An operation across a shareable and a plain region takes the lock: the
		// standard's atomicity is per element and operation, and such spans are rare.
		at.atomics = plain == 0 && shared > 0
		if tg.how == reachCMA {
			if w.translateBlocks(tg, runs, rs) {
				return runs, at, nil
			}
			at.cma = tg.pid
			at.viaAM = at.atomics
		}
		return runs, at, nil
	}
	if err := inWindow(runs, uint64(tg.base), tg.size); err != nil {
		return nil, where{}, err
	}
	at.atomics = tg.shareable
	switch tg.how {
	case reachMapped:
		for i := range runs {
			runs[i].addr = uint64(uintptr(tg.mem)) + (runs[i].addr - uint64(tg.base))
		}
	case reachCMA:
		at.cma = tg.pid
		at.viaAM = at.atomics
	}
	return runs, at, nil
}

// translateBlocks rewrites runs of a dynamic window to addresses in this process when
// every one lies in an MPI_Alloc_mem block of the target that this process maps (or
// can map now); otherwise it leaves them and reports false.
func (w *window) translateBlocks(tg *target, runs []run, rs []region) bool {
	var base [8]unsafe.Pointer
	local := base[:0]
	for _, x := range runs {
		r := rs[regionOf(rs, x.addr, uint64(x.n))]
		if r.memfd <= 0 || x.addr < r.blockBase || x.addr-r.blockBase >= r.blockSize {
			return false
		}
		seg := w.block(tg, r)
		if seg == nil {
			return false
		}
		local = append(local, seg.at(int64(x.addr-r.blockBase)))
	}
	for i := range runs {
		runs[i].addr = uint64(uintptr(local[i]))
	}
	return true
}

// block maps the target's MPI_Alloc_mem block of region r, once (nil if it cannot),
// and tells C's fast paths where it is.
func (w *window) block(tg *target, r region) *segment {
	c := tg.blocks
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if seg, ok := c.segs[r.serial]; ok {
		return seg
	}
	seg, err := mapPeerBlock(tg.pid, int(r.memfd-1), int64(r.blockSize))
	if err != nil {
		seg = nil // remembered: the next operation goes on with process_vm_writev at once
	}
	if c.segs == nil {
		c.segs = map[uint64]*segment{}
	}
	c.segs[r.serial] = seg
	if seg != nil {
		w.publishBlock(w.rankOf(tg), r.serial, seg.at(0))
	}
	return seg
}

// inWindow checks runs against a window of size bytes at base.
func inWindow(runs []run, base uint64, size int64) error {
	for _, x := range runs {
		if x.addr < base || x.addr-base > uint64(size) || uint64(x.n) > uint64(size)-(x.addr-base) {
			return core.Errorf(core.ErrRMARange, "target bytes [%d, %d) are outside the window of %d bytes",
				int64(x.addr-base), int64(x.addr-base)+x.n, size)
		}
	}
	return nil
}

// gather copies the memory of runs into dst (len(dst) = their total), scatter copies
// src into it: loads and stores, or one process_vm_readv/writev per batch of runs.
func (at where) gather(runs []run, dst []byte) error  { return at.move(runs, dst, false) }
func (at where) scatter(runs []run, src []byte) error { return at.move(runs, src, true) }

func (at where) move(runs []run, data []byte, write bool) error {
	if at.cma != 0 {
		return cmaMove(at.cma, runs, data, write)
	}
	off := int64(0)
	for _, x := range runs {
		mem := unsafe.Slice((*byte)(unsafe.Add(nil, uintptr(x.addr))), x.n)
		if write {
			copy(mem, data[off:off+x.n])
		} else {
			copy(data[off:off+x.n], mem)
		}
		off += x.n
	}
	return nil
}

// iovMax is the kernel's limit of iovecs per process_vm_readv/writev call.
const iovMax = 1024

// cmaMove copies between data and runs of process pid's memory.
func cmaMove(pid int, runs []run, data []byte, write bool) error {
	off := int64(0)
	var remote [iovMax]unix.RemoteIovec
	for len(runs) > 0 {
		k := min(len(runs), iovMax)
		var n int64
		for i := 0; i < k; i++ {
			remote[i] = unix.RemoteIovec{Base: uintptr(runs[i].addr), Len: int(runs[i].n)}
			n += runs[i].n
		}
		if n == 0 {
			runs = runs[k:]
			continue
		}
		local := []unix.Iovec{{Base: &data[off]}}
		local[0].SetLen(int(n))
		var got int
		var err error
		if write {
			got, err = unix.ProcessVMWritev(pid, local, remote[:k], 0)
		} else {
			got, err = unix.ProcessVMReadv(pid, local, remote[:k], 0)
		}
		if err != nil || int64(got) != n {
			return core.Errorf(core.ErrRMARange, "one-sided copy with process %d failed after %d of %d bytes: %v", pid, got, n, err)
		}
		off += n
		runs = runs[k:]
	}
	return nil
}

func totalLen(runs []run) int64 {
	var n int64
	for _, x := range runs {
		n += x.n
	}
	return n
}

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

// targetRuns lists the memory that count elements of t at displacement disp occupy in
// rank r's window, and checks it lies inside the window: a displacement that strays
// outside is MPI_ERR_RMA_RANGE here, before any memory is touched. A dynamic window
// whose regions this process cannot read is checked by the target (am.go).
func (w *Win) targetRuns(tg *target, disp int64, count int64, t *datatype.Type, buf []run) ([]run, error) {
	if disp < 0 && w.flavor != FlavorDynamic {
		return nil, core.Errorf(core.ErrDisp, "target displacement %d is negative", disp)
	}
	start := disp // dynamic: an address (MPI_Get_address at the target), displacement unit 1
	if w.flavor != FlavorDynamic {
		// base + disp*dispUnit must not overflow: a product that wraps lands back
		// inside the window (disp 1<<62 with unit 4 is displacement 0).
		if tg.dispUnit > 0 && disp > (math.MaxInt64-int64(tg.base))/tg.dispUnit {
			return nil, core.Errorf(core.ErrRMARange, "target displacement %d (unit %d) is outside the window of %d bytes", disp, tg.dispUnit, tg.size)
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
		return nil, core.Errorf(core.ErrRMARange, "target displacement %d reaches outside the address space", disp)
	}
	if err := w.checkRuns(tg, runs); err != nil {
		return nil, err
	}
	return runs, nil
}

// checkRuns checks runs against what this process knows of the target's window.
func (w *Win) checkRuns(tg *target, runs []run) error {
	if w.flavor == FlavorDynamic {
		if tg.st.p == nil {
			return nil // the target checks (am.go)
		}
		var rbuf [16]region
		rs := tg.st.regions(rbuf[:0])
		for _, x := range runs {
			if !covers(rs, x.addr, uint64(x.n)) {
				return core.Errorf(core.ErrRMARange, "target address %#x (%d bytes) is not in memory attached to the dynamic window", x.addr, x.n)
			}
		}
		return nil
	}
	return inWindow(runs, uint64(tg.base), tg.size)
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

// local is the address, in this process, of target memory at addr (self and mapped).
func (tg *target) local(addr uint64) unsafe.Pointer {
	if tg.how == reachSelf {
		return unsafe.Add(nil, uintptr(addr)) // this process's addresses
	}
	return unsafe.Add(tg.mem, int64(addr-uint64(tg.base)))
}

// gather copies the target memory of runs into dst (len(dst) = their total), scatter
// copies src into it. Self and mapped targets are loads and stores; cma targets one
// process_vm_readv/writev per batch of runs.
func (tg *target) gather(runs []run, dst []byte) error  { return tg.move(runs, dst, false) }
func (tg *target) scatter(runs []run, src []byte) error { return tg.move(runs, src, true) }

func (tg *target) move(runs []run, data []byte, write bool) error {
	if tg.how == reachCMA {
		return cmaMove(tg.pid, runs, data, write)
	}
	off := int64(0)
	for _, x := range runs {
		mem := unsafe.Slice((*byte)(tg.local(x.addr)), x.n)
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

package rma

import (
	"unsafe"

	"mpix/core"
)

// Attach is MPI_Win_attach: size bytes at base become reachable through the dynamic
// window. The region table in the state page is what origins check addresses against.
func (w *window) Attach(base unsafe.Pointer, size int64) error {
	if w.flavor != FlavorDynamic {
		return core.Errorf(core.ErrRMAFlavor, "MPI_Win_attach needs a window from MPI_Win_create_dynamic")
	}
	if size < 0 {
		return core.Errorf(core.ErrSize, "MPI_Win_attach: size %d is negative", size)
	}
	if base == nil && size > 0 {
		return core.Errorf(core.ErrRMAAttach, "MPI_Win_attach: %d bytes at NULL", size)
	}
	if err := w.attach(base, size); err != nil {
		return err
	}
	return nil
}

// attach publishes the region, registered for the transport first (dynnet.go; the
// engine's progress never takes w.mu, so taking the engine's lock under it is safe).
func (w *window) attach(base unsafe.Pointer, size int64) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.checkAttach(base, size); err != nil {
		return err
	}
	w.registerRegion(base, size)
	w.regions = append(w.regions, regionAt(base, size, 0))
	w.own.setRegions(w.regions)
	return nil
}

// checkAttach checks that the region may be attached (under w.mu).
func (w *window) checkAttach(base unsafe.Pointer, size int64) error {
	if len(w.regions) >= maxRegions {
		return core.Errorf(core.ErrRMAAttach, "MPI_Win_attach: a dynamic window takes at most %d regions and memory handles", maxRegions)
	}
	b := uint64(uintptr(base))
	for _, r := range w.regions {
		if r.id == 0 && b < r.base+r.size && r.base < b+uint64(size) { // (memory handles may overlap)
			return core.Errorf(core.ErrRMAAttach, "MPI_Win_attach: [%#x, +%d) overlaps a region already attached", b, size)
		}
	}
	return nil
}

// regionAt describes size bytes at base, in an MPI_Alloc_mem block or not, as region
// id (0: attached).
func regionAt(base unsafe.Pointer, size int64, id uint64) region {
	r := region{base: uint64(uintptr(base)), size: uint64(size), id: id}
	if blk, ok := blockOf(uintptr(base), size); ok {
		r.memfd, r.serial, r.blockBase, r.blockSize = int64(blk.fd)+1, blk.serial, uint64(blk.base), uint64(blk.size)
	}
	return r
}

// Detach is MPI_Win_detach: base must be the start of an attached region.
func (w *window) Detach(base unsafe.Pointer) error {
	if w.flavor != FlavorDynamic {
		return core.Errorf(core.ErrRMAFlavor, "MPI_Win_detach needs a window from MPI_Win_create_dynamic")
	}
	w.mu.Lock()
	b := uint64(uintptr(base))
	for i, r := range w.regions {
		if r.base == b && r.id == 0 {
			w.regions = append(w.regions[:i], w.regions[i+1:]...)
			w.own.setRegions(w.regions)
			w.mu.Unlock()
			w.deregisterRegion(b) // once origins see the table change
			return nil
		}
	}
	w.mu.Unlock()
	return core.Errorf(core.ErrRMAAttach, "MPI_Win_detach: no region attached at %p", base)
}

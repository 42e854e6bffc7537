package rma

import (
	"strings"

	"mpix/core"
	"mpix/core/datatype"
	"mpix/core/op"
)

// Intrinsic accumulates ([RMA] sec. 2.3): MPIX_Win_op_intrinsic tells whether the
// origin's hardware carries out an accumulate by itself, without a lock and without
// the target's CPU, and mpi_assert_accumulate_intrinsic=true promises that only such
// accumulates will be issued. Here that hardware is the CPU's atomics on memory this
// process maps (atomic.go, rma/fast.c): the answer is yes when every element type and
// op has an atomic form and every rank the handle reaches is mapped here with
// shareable memory. Targets reached with process_vm_writev, through their engine or
// through the provider's atomics (netatomic.go, which this does not ask) are not
// intrinsic. An accumulate that takes the provider's atomics is never refused here:
// they take no lock.

// reachesAtomically reports whether this process updates the memory at with CPU
// atomics by itself.
func reachesAtomically(tg *target, at where) bool {
	return tg.how != reachAM && !at.viaAM && at.cma == 0 && at.atomics
}

// checkIntrinsic refuses, on a handle that asserted mpi_assert_accumulate_intrinsic,
// an accumulate that would not be intrinsic: the promise was broken, and a lock taken
// here would not be atomic with the other processes' lock-free updates.
func (w *Win) checkIntrinsic(tg *target, at where, opr *op.Op, basic *datatype.Type, what string) error {
	if !w.info.intrinsic || (reachesAtomically(tg, at) && atomicOp(opr, atomicKindOf(basic))) {
		return nil
	}
	tn := "this datatype"
	if basic != nil {
		tn = basic.Name()
	}
	return core.Errorf(core.ErrOp, "%s: %s on %s is not intrinsic on this window, which asserts mpi_assert_accumulate_intrinsic=true (ask MPIX_Win_op_intrinsic first)", what, opr.Kind(), tn)
}

// opNames are the names MPIX_Win_op_intrinsic takes: the predefined ops' names
// without "MPI_", in lower case, and "cas" for MPI_Compare_and_swap.
var opNames = func() map[string]op.Kind {
	m := map[string]op.Kind{}
	for k := op.Max; k <= op.NoOp; k++ {
		m[strings.ToLower(strings.TrimPrefix(k.String(), "MPI_"))] = k
	}
	return m
}()

const casName = "cas"

// OpIntrinsic is MPIX_Win_op_intrinsic: whether ops (a comma-separated list of op
// names), on up to maxCount elements of t, are intrinsic on this handle. Atomics are
// per element, so the count does not change the answer.
func (w *Win) OpIntrinsic(ops string, maxCount int64, t *datatype.Type) (bool, error) {
	if maxCount < 0 {
		return false, core.Errorf(core.ErrCount, "MPIX_Win_op_intrinsic: max_count %d is negative", maxCount)
	}
	var kinds []op.Kind
	cas := false
	for _, name := range strings.Split(ops, ",") {
		name = strings.ToLower(strings.TrimSpace(name))
		if name == casName {
			cas = true
			continue
		}
		k, ok := opNames[name]
		if !ok {
			return false, core.Errorf(core.ErrArg, "MPIX_Win_op_intrinsic: %q is not an operation name (sum, prod, max, min, band, bor, bxor, land, lor, lxor, maxloc, minloc, replace, no_op, cas)", name)
		}
		kinds = append(kinds, k)
	}
	basic := t
	if !t.IsPredefined() {
		b, err := op.Predefined(op.Replace).Basic(t)
		if err != nil || b == nil {
			return false, nil // a type of mixed elements: the lock
		}
		basic = b
	}
	ak := atomicKindOf(basic)
	for _, k := range kinds {
		if !atomicOp(op.Predefined(k), ak) {
			return false, nil
		}
	}
	if cas && (ak == noAtomic || ak == atomicF32 || ak == atomicF64) {
		return false, nil
	}
	return w.atomicEverywhere(), nil
}

// atomicEverywhere reports whether every rank the handle reaches is memory this
// process updates with atomics by itself. A dynamic window cannot say: its memory is
// attached later, and only MPI_Alloc_mem memory is shareable.
func (w *Win) atomicEverywhere() bool {
	if m := w.mh; m != nil {
		return m.local != nil && m.atomics
	}
	if w.flavor == FlavorDynamic {
		return false
	}
	for r := range w.targets {
		t := &w.targets[r]
		if t.size == 0 {
			continue // nothing to update there
		}
		if (t.how != reachSelf && t.how != reachMapped) || !t.shareable {
			return false
		}
	}
	return true
}

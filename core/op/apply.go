package op

import (
	"math"
	"mpix/core/mpierr"
	"sync"
	"sync/atomic"
	"unsafe"

	"mpix/core/datatype"
)

// ForeignKernel computes a predefined op (Max, Min, Sum, Prod, MinLoc or MaxLoc) on n
// elements of a foreign kind, stride bytes apart; for LongDoubleInt the index is idx
// bytes after the value. Operands may be unaligned. It returns false for a
// combination it has no kernel for.
type ForeignKernel func(k Kind, f Foreign, in, inout unsafe.Pointer, n int64, stride, idx int64) bool

var foreign atomic.Pointer[ForeignKernel]

// SetForeignKernel installs the kernel for the element kinds Go cannot compute (long
// double, binary128, binary16). The C boundary calls it at load time; without it,
// reductions on those types fail with MPI_ERR_INTERN.
func SetForeignKernel(fk ForeignKernel) { foreign.Store(&fk) }

// Apply computes inout[i] = in[i] op inout[i] for count elements of t at in and inout
// (both laid out as user buffers of t). For a non-commutative op, in must hold the
// operand of the lower rank. It returns MPI_ERR_OP when op is not defined on t (see
// Check). Apply does not allocate for predefined types and contiguous data.
func (o *Op) Apply(in, inout unsafe.Pointer, count int64, t *datatype.Type) error {
	if count < 0 {
		return errorf(mpierr.ErrCount, "negative count %d", count)
	}
	if t.Size() > 0 && count > math.MaxInt64/t.Size() {
		return errorf(mpierr.ErrCount, "count %d of datatype %s is too large", count, typeName(t))
	}
	empty := count == 0 || t.Size() == 0
	switch o.kind {
	case User:
		if empty {
			return nil
		}
		return o.applyUser(in, inout, count, t)
	case NoOp:
		return nil
	case Replace:
		if !empty {
			replace(in, inout, count, t)
		}
		return nil
	}
	// The common case first: a predefined type, laid out in memory as its C type.
	if l := predefinedLeaf(t.Handle()); l != nil {
		if !l.allows(o.kind) {
			return o.undefined(t, l)
		}
		if empty {
			return nil
		}
		return run(o.kind, l, in, inout, count, t.Extent(), l.idxMem)
	}
	l, found, err := o.derived(t)
	if err != nil || !found || empty {
		return err
	}
	if t.Contiguous() {
		// The data is the packed stream itself: leaves back to back.
		in, inout = unsafe.Add(in, t.TrueLB()), unsafe.Add(inout, t.TrueLB())
		return run(o.kind, &l, in, inout, count*(t.Size()/l.size), l.size, l.idxPacked)
	}
	return applyPacked(o.kind, &l, in, inout, count, t)
}

// Check reports whether o may be applied to t: nil for user ops, MPI_REPLACE and
// MPI_NO_OP, which take any type; for the other predefined ops, t must be one of the
// types the op is defined on, or a derived type whose type map holds only one such
// type (leaves of the same representation, such as MPI_INT and MPI_INT32_T, count as
// one). Anything else is MPI_ERR_OP.
func (o *Op) Check(t *datatype.Type) error {
	switch o.kind {
	case User, Replace, NoOp:
		return nil
	}
	if l := predefinedLeaf(t.Handle()); l != nil {
		if !l.allows(o.kind) {
			return o.undefined(t, l)
		}
		return nil
	}
	_, _, err := o.derived(t)
	return err
}

// Apply is o.Apply(in, inout, count, t).
func Apply(o *Op, in, inout unsafe.Pointer, count int64, t *datatype.Type) error {
	return o.Apply(in, inout, count, t)
}

// Check is o.Check(t).
func Check(o *Op, t *datatype.Type) error { return o.Check(t) }

func (o *Op) undefined(t *datatype.Type, l *leaf) error {
	if l.h == t.Handle() {
		return errorf(mpierr.ErrOp, "%s is not defined for datatype %s", o, typeName(t))
	}
	return errorf(mpierr.ErrOp, "%s is not defined for datatype %s, whose elements are %s", o, typeName(t), leafName(l))
}

// derived resolves a derived type's leaf for a predefined op; found is false if the
// type has no data.
func (o *Op) derived(t *datatype.Type) (l leaf, found bool, err error) {
	l, found, mixed, err := derivedLeaf(t)
	switch {
	case err != nil:
		return leaf{}, false, err
	case mixed != nil:
		return leaf{}, false, errorf(mpierr.ErrOp, "%s needs a datatype made of one basic type; datatype %s mixes %s and %s",
			o, typeName(t), leafName(&l), leafName(mixed))
	case found && !l.allows(o.kind):
		return leaf{}, false, o.undefined(t, &l)
	}
	return l, found, nil
}

// run applies a predefined op to n leaves, stride bytes apart.
func run(k Kind, l *leaf, in, inout unsafe.Pointer, n, stride, idx int64) error {
	if f := foreignOf[l.e]; f != NotForeign {
		fk := foreign.Load()
		if fk == nil {
			return errorf(mpierr.ErrIntern, "%s on %s needs mpix's C kernels, which this program lacks", k, leafName(l))
		}
		if !(*fk)(k, f, in, inout, n, stride, idx) {
			return errorf(mpierr.ErrIntern, "mpix's C kernels cannot compute %s on %s", k, leafName(l))
		}
		return nil
	}
	if l.e.isPair() {
		pairKernels[k-MinLoc][l.e](in, inout, int(n), uintptr(stride), uintptr(idx))
		return nil
	}
	if stride != l.size { // cannot happen: basic types tile their extent
		return errorf(mpierr.ErrIntern, "%s: datatype %s has stride %d", k, leafName(l), stride)
	}
	kernels[k][l.e](in, inout, int(n))
	return nil
}

// chunkSize is how many packed bytes applyPacked handles at a time: small enough to
// stay in L1 with its two buffers, large enough to amortize the pack engine's search.
const chunkSize = 8 << 10

var chunks = sync.Pool{New: func() any { return new([2][chunkSize]byte) }}

// applyPacked applies a predefined op to non-contiguous data: pack a chunk of each
// operand, combine the packed leaves, unpack the result.
func applyPacked(k Kind, l *leaf, in, inout unsafe.Pointer, count int64, t *datatype.Type) error {
	buf := chunks.Get().(*[2][chunkSize]byte)
	defer chunks.Put(buf)
	total := count * t.Size()
	step := chunkSize / l.size * l.size
	for off := int64(0); off < total; off += step {
		n := min(step, total-off)
		a, b := buf[0][:n], buf[1][:n]
		datatype.Pack(a, in, count, t, off)
		datatype.Pack(b, inout, count, t, off)
		if err := run(k, l, unsafe.Pointer(&a[0]), unsafe.Pointer(&b[0]), n/l.size, l.size, l.idxPacked); err != nil {
			return err
		}
		datatype.Unpack(b, inout, count, t, off)
	}
	return nil
}

// replace is MPI_REPLACE: inout = in, for any type.
func replace(in, inout unsafe.Pointer, count int64, t *datatype.Type) {
	total := count * t.Size()
	if t.Contiguous() {
		src := unsafe.Slice((*byte)(unsafe.Add(in, t.TrueLB())), total)
		dst := unsafe.Slice((*byte)(unsafe.Add(inout, t.TrueLB())), total)
		copy(dst, src)
		return
	}
	buf := chunks.Get().(*[2][chunkSize]byte)
	defer chunks.Put(buf)
	for off := int64(0); off < total; off += chunkSize {
		n := datatype.Pack(buf[0][:], in, count, t, off)
		datatype.Unpack(buf[0][:n], inout, count, t, off)
	}
}

// applyUser calls a user function, in pieces of at most o.maxCount elements.
func (o *Op) applyUser(in, inout unsafe.Pointer, count int64, t *datatype.Type) error {
	ext := t.Extent()
	for {
		n := min(count, o.maxCount)
		o.fn(in, inout, n, t.Handle())
		if count -= n; count == 0 {
			return nil
		}
		in, inout = unsafe.Add(in, n*ext), unsafe.Add(inout, n*ext)
	}
}

// Basic returns the predefined datatype that t's type map is made of (t itself when it
// is predefined): the unit one-sided accumulates apply op to, element by element. It
// fails with MPI_ERR_OP, as Check does, when o cannot apply to t, and returns nil for a
// type with no data.
func (o *Op) Basic(t *datatype.Type) (*datatype.Type, error) {
	if err := o.Check(t); err != nil {
		return nil, err
	}
	if l := predefinedLeaf(t.Handle()); l != nil {
		return t, nil
	}
	l, found, mixed, err := derivedLeaf(t)
	switch {
	case err != nil:
		return nil, err
	case mixed != nil:
		return nil, errorf(mpierr.ErrOp, "%s needs a datatype made of one basic type; datatype %s mixes %s and %s",
			o, typeName(t), leafName(&l), leafName(mixed))
	case !found:
		return nil, nil
	}
	return datatype.Predefined(l.h), nil
}

// SameElements reports whether two predefined types have the same representation
// (MPI_INT and MPI_INT32_T do): one-sided accumulates need the same basic type at the
// origin and the target.
func SameElements(a, b *datatype.Type) bool {
	la, lb := predefinedLeaf(a.Handle()), predefinedLeaf(b.Handle())
	return la != nil && lb != nil && la.e == lb.e && la.size == lb.size
}

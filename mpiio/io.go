package mpiio

import (
	"unsafe"

	"mpix/core"
	"mpix/core/datatype"
)

// Buf is the memory side of an access: count elements of type T at Addr.
type Buf struct {
	Addr  unsafe.Pointer
	Count int64
	T     *datatype.Type
}

// Bytes is the number of data bytes the buffer holds.
func (b Buf) Bytes() int64 { return b.Count * b.T.Size() }

func (b Buf) check(v *View) error {
	if b.Count < 0 {
		return core.Errorf(core.ErrCount, "the count must not be negative (%d)", b.Count)
	}
	if !b.T.Committed() {
		return core.Errorf(core.ErrType, "the datatype must be committed")
	}
	if v.Datarep == datatype.External32 {
		if err := sameExternalSize(b.T); err != nil {
			return err
		}
	}
	if b.Bytes()%v.esize != 0 {
		return core.Errorf(core.ErrType, "the access (%d bytes) is not a whole number of etypes (%d bytes)", b.Bytes(), v.esize)
	}
	return nil
}

// sieveRatio bounds data sieving for strided reads: one read of the whole span of
// the data when the span is at most this many times the data.
const sieveRatio = 4

// transfer reads or writes buffer b at etype offset pos of view v and returns the
// number of bytes moved (less than asked for a read that meets the end of the file).
func (f *File) transfer(v *View, pos int64, b Buf, write bool, atomic bool) (int64, error) {
	if err := b.check(v); err != nil {
		return 0, err
	}
	if pos < 0 {
		return 0, core.Errorf(core.ErrArg, "the offset must not be negative (%d)", pos)
	}
	n := b.Bytes()
	if n == 0 {
		return 0, nil
	}
	// The data, packed: the buffer itself when its type is contiguous and the file
	// holds native data.
	var data []byte
	direct := b.T.Contiguous() && v.Datarep != datatype.External32
	if direct {
		data = unsafe.Slice((*byte)(unsafe.Add(b.Addr, b.T.TrueLB())), n)
	} else if write {
		data = pack(v, b)
	} else {
		data = make([]byte, n)
	}
	p := pos * v.esize
	first := v.Disp + v.fileOffset(p)
	last := v.Disp + v.fileOffset(p+n-1) + 1
	if atomic {
		if err := f.h.Lock(first, last-first, write); err != nil {
			return 0, ioError("lock "+f.path, err)
		}
		defer f.h.Unlock(first, last-first)
	}
	var done int64
	var err error
	switch {
	case write:
		v.Segments(p, n, func(off, k int64) bool {
			var w int
			w, err = f.h.WriteAt(data[done:done+k], off)
			done += int64(w)
			return err == nil
		})
		err = ioError("write "+f.path, err)
	case last-first > n && last-first <= sieveRatio*n:
		// Data sieving: one read of the span, the data picked out of it.
		span := make([]byte, last-first)
		var got int
		got, err = f.h.ReadAt(span, first)
		err = ioError("read "+f.path, err)
		v.Segments(p, n, func(off, k int64) bool {
			have := min(k, max(0, int64(got)-(off-first)))
			copy(data[done:done+have], span[off-first:])
			done += have
			return have == k
		})
	default:
		v.Segments(p, n, func(off, k int64) bool {
			var r int
			r, err = f.h.ReadAt(data[done:done+k], off)
			done += int64(r)
			return err == nil && int64(r) == k
		})
		err = ioError("read "+f.path, err)
	}
	if !write && !direct && done > 0 {
		unpack(v, b, data[:done])
	}
	return done, err
}

// pack returns the data of b as the file holds it (in the view's representation).
func pack(v *View, b Buf) []byte {
	data := make([]byte, b.Bytes())
	switch {
	case v.Datarep == datatype.External32:
		datatype.PackExternal(data, b.Addr, b.Count, b.T)
	case b.T.Contiguous():
		copy(data, unsafe.Slice((*byte)(unsafe.Add(b.Addr, b.T.TrueLB())), len(data)))
	default:
		datatype.Pack(data, b.Addr, b.Count, b.T, 0)
	}
	return data
}

// unpack stores data read from the file (the first bytes of b's data, in the view's
// representation) into b. Of an external32 file only whole elements of b's type are
// converted.
func unpack(v *View, b Buf, data []byte) {
	switch {
	case v.Datarep == datatype.External32:
		if whole := int64(len(data)) / b.T.Size(); whole > 0 {
			datatype.UnpackExternal(data, b.Addr, whole, b.T)
		}
	case b.T.Contiguous():
		copy(unsafe.Slice((*byte)(unsafe.Add(b.Addr, b.T.TrueLB())), len(data)), data)
	default:
		datatype.Unpack(data, b.Addr, b.Count, b.T, 0)
	}
}

func (f *File) noSequential() error {
	if f.amode&ModeSequential != 0 {
		return core.Errorf(core.ErrUnsupportedOp, "the file was opened with MPI_MODE_SEQUENTIAL: only the shared file pointer may be used")
	}
	return nil
}

func (f *File) access(write bool) error {
	if write {
		return f.writable()
	}
	return f.readable()
}

// state returns the view and atomic mode of the moment.
func (f *File) state() (*View, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.view, f.atomic
}

// At is MPI_File_read_at and MPI_File_write_at (and their collective forms, which
// do the same here): an access at an explicit etype offset.
func (f *File) At(offset int64, b Buf, write bool) (int64, error) {
	if err := firstError(f.noSequential(), f.access(write)); err != nil {
		return 0, err
	}
	v, atomic := f.state()
	return f.transfer(v, offset, b, write, atomic)
}

// Individual is MPI_File_read and MPI_File_write: an access at the individual file
// pointer, which moves past the data moved.
func (f *File) Individual(b Buf, write bool) (int64, error) {
	if err := firstError(f.noSequential(), f.access(write)); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n, err := f.transfer(f.view, f.pos, b, write, f.atomic)
	f.pos += n / f.view.esize
	return n, err
}

// CollectiveAt is MPI_File_read_at_all and MPI_File_write_at_all (and their
// nonblocking and split forms): a collective access at an explicit offset.
func (f *File) CollectiveAt(offset int64, b Buf, write bool) (int64, error) {
	if err := f.noSequential(); err != nil {
		return 0, err
	}
	return f.Collective(offset, b, write)
}

// CollectiveIndividual is MPI_File_read_all and MPI_File_write_all (and their
// nonblocking and split forms): a collective access at the individual file pointer.
func (f *File) CollectiveIndividual(b Buf, write bool) (int64, error) {
	if err := f.noSequential(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	pos, esize := f.pos, f.view.esize
	f.mu.Unlock()
	n, err := f.Collective(pos, b, write)
	f.mu.Lock()
	f.pos = pos + n/esize
	f.mu.Unlock()
	return n, err
}

// Shared is MPI_File_read_shared and MPI_File_write_shared: the shared file pointer
// moves past the whole access first, then the data moves there.
func (f *File) Shared(b Buf, write bool) (int64, error) {
	if err := f.access(write); err != nil {
		return 0, err
	}
	v, atomic := f.state()
	if err := b.check(v); err != nil {
		return 0, err
	}
	at, err := f.shared.fetchAdd(b.Bytes() / v.esize)
	if err != nil {
		return 0, err
	}
	return f.transfer(v, at, b, write, atomic)
}

// Ordered is MPI_File_read_ordered and MPI_File_write_ordered, collective: the ranks'
// accesses follow each other in rank order from the shared file pointer, which moves
// past all of them.
func (f *File) Ordered(b Buf, write bool) (int64, error) {
	v, atomic := f.state()
	err := firstError(f.access(write), b.check(v), f.shared.check())
	if err = agree(f.comm, err); err != nil {
		return 0, err
	}
	mine := b.Bytes() / v.esize
	all, err := allgather(f.comm, mine)
	if err != nil {
		return 0, err
	}
	var total, before int64
	for r, k := range all {
		if r < f.comm.Rank {
			before += k
		}
		total += k
	}
	base := []int64{0}
	if f.comm.Rank == 0 {
		base[0], err = f.shared.fetchAdd(total)
		if err != nil {
			base[0] = -1
		}
	}
	if berr := bcast(f.comm, 0, base); berr != nil {
		return 0, berr
	}
	if base[0] < 0 {
		if err != nil {
			return 0, err
		}
		return 0, core.Errorf(core.ErrIO, "rank 0 could not move the shared file pointer")
	}
	return f.transfer(v, base[0]+before, b, write, atomic)
}

// SeekTo is MPI_File_seek.
func (f *File) SeekTo(offset int64, whence int) error {
	if err := f.noSequential(); err != nil {
		return err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	pos, err := f.seekTarget(f.view, f.pos, offset, whence)
	if err != nil {
		return err
	}
	f.pos = pos
	return nil
}

func (f *File) seekTarget(v *View, cur, offset int64, whence int) (int64, error) {
	var pos int64
	switch whence {
	case SeekSet:
		pos = offset
	case SeekCur:
		pos = cur + offset
	case SeekEnd:
		size, err := f.h.Size()
		if err != nil {
			return 0, ioError("size of "+f.path, err)
		}
		end := v.DataBelow(size)
		pos = (end+v.esize-1)/v.esize + offset
	default:
		return 0, core.Errorf(core.ErrArg, "invalid whence %d (MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END)", whence)
	}
	if pos < 0 {
		return 0, core.Errorf(core.ErrArg, "the file pointer would move before the start of the view (%d)", pos)
	}
	return pos, nil
}

// Position is MPI_File_get_position.
func (f *File) Position() (int64, error) {
	if err := f.noSequential(); err != nil {
		return 0, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pos, nil
}

// SharedPosition is MPI_File_get_position_shared.
func (f *File) SharedPosition() (int64, error) { return f.shared.get() }

// SeekShared is MPI_File_seek_shared, collective: every rank passes the same offset
// and whence; rank 0 moves the pointer.
func (f *File) SeekShared(offset int64, whence int) error {
	if err := f.shared.check(); err != nil {
		return err
	}
	if err := firstError(f.sameEverywhere("offset", offset), f.sameEverywhere("whence", int64(whence))); err != nil {
		return err
	}
	var err error
	if f.comm.Rank == 0 {
		v, _ := f.state()
		var cur, pos int64
		if cur, err = f.shared.get(); err == nil {
			if pos, err = f.seekTarget(v, cur, offset, whence); err == nil {
				err = f.shared.set(pos)
			}
		}
	}
	return agree(f.comm, err)
}

// ByteOffset is MPI_File_get_byte_offset.
func (f *File) ByteOffset(offset int64) (int64, error) {
	if err := f.noSequential(); err != nil {
		return 0, err
	}
	if offset < 0 {
		return 0, core.Errorf(core.ErrArg, "the offset must not be negative (%d)", offset)
	}
	v, _ := f.state()
	return v.ByteOffset(offset), nil
}

// SetView is MPI_File_set_view, collective: both file pointers go back to 0.
func (f *File) SetView(disp int64, etype, filetype *datatype.Type, datarep string, info *core.Info) error {
	f.mu.Lock()
	if f.split != nil {
		f.mu.Unlock()
		return core.Errorf(core.ErrOther, "a split collective operation is active on the file")
	}
	f.mu.Unlock()
	const displacementCurrent = -54278278 // MPI_DISPLACEMENT_CURRENT (MPICH)
	var v *View
	var err error
	if disp == displacementCurrent {
		if f.amode&ModeSequential == 0 {
			err = core.Errorf(core.ErrArg, "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL")
		} else if disp, err = f.shared.get(); err == nil {
			cur, _ := f.state()
			disp = cur.ByteOffset(disp)
		}
	}
	if err == nil {
		v, err = NewView(disp, etype, filetype, datarep)
	}
	if err = agree(f.comm, err); err != nil {
		return err
	}
	if f.comm.Rank == 0 && f.shared != nil {
		err = f.shared.set(0)
	}
	if err = agree(f.comm, err); err != nil {
		return err
	}
	etype.Ref()
	filetype.Ref()
	f.mu.Lock()
	old := f.view
	f.view, f.pos = v, 0
	f.mu.Unlock()
	old.Etype.Release()
	old.Filetype.Release()
	f.applyHints(info)
	return nil
}

// View is MPI_File_get_view.
func (f *File) View() *View {
	v, _ := f.state()
	return v
}

// splitOp is the split collective operation begun on a file (one at a time).
type splitOp struct {
	buf  unsafe.Pointer
	kind string // "read_all", "write_at_all", ...
	n    int64
	err  error
}

// Begin starts a split collective operation: it is carried out now, and End reports
// it.
func (f *File) Begin(kind string, b Buf, do func() (int64, error)) error {
	f.mu.Lock()
	if f.split != nil {
		f.mu.Unlock()
		return core.Errorf(core.ErrOther, "a split collective operation is already active on the file")
	}
	f.split = &splitOp{buf: b.Addr, kind: kind}
	f.mu.Unlock()
	n, err := do()
	f.mu.Lock()
	f.split.n, f.split.err = n, err
	f.mu.Unlock()
	return nil
}

// End finishes the split collective operation begun with buf, returning its byte
// count.
func (f *File) End(kind string, buf unsafe.Pointer) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.split
	if s == nil || s.kind != kind {
		return 0, core.Errorf(core.ErrOther, "no MPI_File_%s_begin is active on the file", kind)
	}
	if s.buf != buf {
		return 0, core.Errorf(core.ErrBuffer, "the buffer differs from the one the split collective operation began with")
	}
	f.split = nil
	return s.n, s.err
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

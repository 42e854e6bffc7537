package mpiio

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"mpix/core"
	"mpix/core/datatype"
)

// Access mode bits (MPICH's MPI_MODE_* values).
const (
	ModeCreate        = 1
	ModeRdonly        = 2
	ModeWronly        = 4
	ModeRdwr          = 8
	ModeDeleteOnClose = 16
	ModeUniqueOpen    = 32
	ModeExcl          = 64
	ModeAppend        = 128
	ModeSequential    = 256
	modeAll           = 511
)

// Whence values of MPI_File_seek (MPICH's MPI_SEEK_*).
const (
	SeekSet = 600
	SeekCur = 602
	SeekEnd = 604
)

// File is an open file. Its C handle (Addr) is an address in a mapping the library
// reserved for file handles, never memory of the program's; Lookup maps it back.
type File struct {
	Addr  uintptr
	comm  *core.Comm // a private duplicate of the communicator of the open
	amode int
	path  string
	drv   Driver
	h     Handle

	mu     sync.Mutex // view, pos, atomic, split, hints
	view   *View
	pos    int64 // the individual file pointer, in etypes of the view
	atomic bool
	hints  *core.Info
	split  *splitOp

	shared *sharedPointer // nil when no sidecar file could be made (see shared.go)
	errh   atomic.Pointer[core.Errhandler]
	closed bool
}

// The handle addresses: a reserved, inaccessible mapping handed out in turn, so a
// closed file's address is not given to another file until 2^20 opens later and a
// stale handle is refused rather than taken for a newer file.
var handles struct {
	mu    sync.Mutex
	base  uintptr
	next  uintptr
	open  map[uintptr]*File
	space []byte
}

const handleSpace = 1 << 20

func newAddr() (uintptr, error) {
	handles.mu.Lock()
	defer handles.mu.Unlock()
	if handles.base == 0 {
		b, err := unix.Mmap(-1, 0, handleSpace, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANON|unix.MAP_NORESERVE)
		if err != nil {
			return 0, core.Errorf(core.ErrNoMem, "reserving file handles: %v", err)
		}
		handles.space = b
		handles.base = uintptr(unsafePointer(b))
		handles.open = map[uintptr]*File{}
	}
	for i := 0; i < handleSpace; i++ {
		a := handles.base + handles.next
		handles.next = (handles.next + 1) % handleSpace
		if handles.open[a] == nil {
			return a, nil
		}
	}
	return 0, core.Errorf(core.ErrNoMem, "too many open files")
}

// Lookup returns the open file whose C handle is addr: MPI_ERR_FILE for
// MPI_FILE_NULL, a closed file or any other address.
func Lookup(addr uintptr) (*File, error) {
	if addr == 0 {
		return nil, core.Errorf(core.ErrFile, "MPI_FILE_NULL is not an open file")
	}
	handles.mu.Lock()
	f := handles.open[addr]
	handles.mu.Unlock()
	if f == nil {
		return nil, core.Errorf(core.ErrFile, "invalid file handle %#x (not an open file)", addr)
	}
	return f, nil
}

// nullErrh is MPI_FILE_NULL's error handler: the one files get at open, and the one
// errors of MPI_File_open and MPI_File_delete go to. MPI_ERRORS_RETURN at first
// (MPI-4.1 §9.3).
var nullErrh atomic.Pointer[core.Errhandler]

// NullErrhandler is MPI_FILE_NULL's error handler.
func NullErrhandler() *core.Errhandler {
	if e := nullErrh.Load(); e != nil {
		return e
	}
	return core.ErrhReturn
}

// SetNullErrhandler is MPI_File_set_errhandler on MPI_FILE_NULL.
func SetNullErrhandler(e *core.Errhandler) error {
	if err := e.CheckAttach(core.OnFile); err != nil {
		return err
	}
	if old := nullErrh.Swap(e.Ref()); old != nil {
		old.Release()
	}
	return nil
}

// Errhandler is the file's error handler.
func (f *File) Errhandler() *core.Errhandler { return f.errh.Load() }

// SetErrhandler is MPI_File_set_errhandler.
func (f *File) SetErrhandler(e *core.Errhandler) error {
	if err := e.CheckAttach(core.OnFile); err != nil {
		return err
	}
	if old := f.errh.Swap(e.Ref()); old != nil {
		old.Release()
	}
	return nil
}

// CheckAmode checks an access mode as MPI_File_open does (MPI-4.1 §14.2.1).
func CheckAmode(amode int) error {
	if amode&^modeAll != 0 {
		return core.Errorf(core.ErrAmode, "unknown access mode bits %#x", amode&^modeAll)
	}
	n := 0
	for _, m := range []int{ModeRdonly, ModeWronly, ModeRdwr} {
		if amode&m != 0 {
			n++
		}
	}
	if n != 1 {
		return core.Errorf(core.ErrAmode, "exactly one of MPI_MODE_RDONLY, MPI_MODE_WRONLY and MPI_MODE_RDWR must be given")
	}
	if amode&ModeRdonly != 0 && amode&(ModeCreate|ModeExcl) != 0 {
		return core.Errorf(core.ErrAmode, "MPI_MODE_CREATE and MPI_MODE_EXCL are erroneous with MPI_MODE_RDONLY")
	}
	if amode&ModeRdwr != 0 && amode&ModeSequential != 0 {
		return core.Errorf(core.ErrAmode, "MPI_MODE_SEQUENTIAL is erroneous with MPI_MODE_RDWR")
	}
	return nil
}

// Open is MPI_File_open, collective over comm. Rank 0 creates the file (when asked)
// before the others open it, so MPI_MODE_EXCL fails at every rank or none; the open
// fails everywhere if it fails anywhere, with the lowest failing rank's class.
func Open(comm *core.Comm, name string, amode int, info *core.Info) (*File, error) {
	if comm.IsInter() {
		return nil, core.Errorf(core.ErrComm, "MPI_File_open needs an intracommunicator")
	}
	// Every rank must pass the same amode.
	all, err := allgather(comm, int64(amode))
	if err != nil {
		return nil, err
	}
	for r, a := range all {
		if int(a) != amode {
			return nil, core.Errorf(core.ErrNotSame, "rank %d opens with access mode %#x, this rank with %#x", r, a, amode)
		}
	}
	if err := CheckAmode(amode); err != nil {
		return nil, err
	}
	var dup *core.Comm
	if _, err := core.Dup(core.Blocking, comm, nil, false, func(c *core.Comm) error { dup = c; return nil }); err != nil {
		return nil, err
	}
	f, err := open(dup, name, amode, info)
	if err != nil {
		dup.Free()
		return nil, err
	}
	return f, nil
}

func open(c *core.Comm, name string, amode int, info *core.Info) (*File, error) {
	drv, path := driverFor(name)
	if path == "" {
		return nil, core.Errorf(core.ErrBadFile, "empty file name")
	}
	acc := Access{Read: amode&(ModeRdonly|ModeRdwr) != 0, Write: amode&(ModeWronly|ModeRdwr) != 0}
	var h Handle
	var err error
	// Rank 0 first, creating the file if asked; then the others.
	if c.Rank == 0 {
		a := acc
		a.Create, a.Exclusive = amode&ModeCreate != 0, amode&ModeExcl != 0
		h, err = drv.Open(path, a, 0o666)
		err = ioError("open "+path, err)
	}
	class := []int64{0}
	if err != nil {
		class[0] = int64(core.AsError(err).Class)
	}
	if berr := bcast(c, 0, class); berr != nil {
		return nil, berr
	}
	if class[0] != 0 {
		if c.Rank == 0 {
			return nil, err
		}
		return nil, core.Errorf(int(class[0]), "open %s failed at rank 0", path)
	}
	if c.Rank != 0 {
		h, err = drv.Open(path, acc, 0o666)
		err = ioError("open "+path, err)
	}
	if err = agree(c, err); err != nil {
		if h != nil {
			h.Close()
		}
		return nil, err
	}
	f := &File{comm: c, amode: amode, path: path, drv: drv, h: h, hints: core.NewInfo()}
	f.errh.Store(NullErrhandler().Ref())
	f.view, _ = NewView(0, byteType, byteType, "native")
	f.applyHints(info)
	if amode&ModeAppend != 0 {
		size, err := h.Size()
		if err != nil {
			h.Close()
			return nil, ioError("size of "+path, err)
		}
		f.pos = size
	}
	f.shared, err = newSharedPointer(f, f.pos)
	if err != nil {
		h.Close()
		return nil, err
	}
	addr, err := newAddr()
	if err != nil {
		h.Close()
		f.shared.close(c.Rank == 0)
		return nil, err
	}
	f.Addr = addr
	handles.mu.Lock()
	handles.open[addr] = f
	handles.mu.Unlock()
	core.Files.Register(addr)
	return f, nil
}

var byteType = datatype.Predefined(0x4c00010d) // MPI_BYTE

// Close is MPI_File_close, collective: the file is closed at every rank, then
// deleted by rank 0 with MPI_MODE_DELETE_ON_CLOSE.
func (f *File) Close() error {
	f.mu.Lock()
	if f.split != nil {
		f.mu.Unlock()
		return core.Errorf(core.ErrOther, "a split collective operation is still active on the file")
	}
	f.closed = true
	f.mu.Unlock()
	handles.mu.Lock()
	delete(handles.open, f.Addr)
	handles.mu.Unlock()
	core.Files.Unregister(f.Addr)
	err := ioError("close "+f.path, f.h.Close())
	if berr := barrier(f.comm); err == nil {
		err = berr
	}
	f.shared.close(f.comm.Rank == 0)
	if f.amode&ModeDeleteOnClose != 0 {
		// Rank 0 deletes the file once every rank has closed it; every rank returns
		// once it is gone.
		var derr error
		if f.comm.Rank == 0 {
			derr = ioError("delete "+f.path, f.drv.Delete(f.path))
		}
		if derr = agree(f.comm, derr); err == nil {
			err = derr
		}
	}
	if e := f.errh.Swap(nil); e != nil {
		e.Release()
	}
	f.view.Etype.Release() // the references SetView took
	f.view.Filetype.Release()
	f.hints.Free()
	f.comm.Free()
	return err
}

// Delete is MPI_File_delete.
func Delete(name string) error {
	drv, path := driverFor(name)
	if err := drv.Delete(path); err != nil {
		return ioError("delete "+path, err)
	}
	return nil
}

// Comm is the file's communicator (a duplicate of the one it was opened with).
func (f *File) Comm() *core.Comm { return f.comm }

// Amode is MPI_File_get_amode.
func (f *File) Amode() int { return f.amode }

// Size is MPI_File_get_size.
func (f *File) Size() (int64, error) {
	s, err := f.h.Size()
	return s, ioError("size of "+f.path, err)
}

// SetSize is MPI_File_set_size, collective: rank 0 truncates or extends the file.
func (f *File) SetSize(size int64) error {
	if size < 0 {
		return core.Errorf(core.ErrArg, "the size must not be negative (%d)", size)
	}
	if err := f.writable(); err != nil {
		return err
	}
	if err := f.sameEverywhere("size", size); err != nil {
		return err
	}
	var err error
	if f.comm.Rank == 0 {
		err = ioError("truncate "+f.path, f.h.Truncate(size))
	}
	return agree(f.comm, err)
}

// Preallocate is MPI_File_preallocate, collective: storage for size bytes, the size
// grown to size when it was smaller.
func (f *File) Preallocate(size int64) error {
	if size < 0 {
		return core.Errorf(core.ErrArg, "the size must not be negative (%d)", size)
	}
	if err := f.writable(); err != nil {
		return err
	}
	if err := f.sameEverywhere("size", size); err != nil {
		return err
	}
	var err error
	if f.comm.Rank == 0 {
		err = ioError("preallocate "+f.path, f.h.Preallocate(size))
	}
	return agree(f.comm, err)
}

// Sync is MPI_File_sync, collective: each rank's writes reach the storage device.
func (f *File) Sync() error {
	if err := f.writable(); err != nil {
		return err
	}
	err := ioError("sync "+f.path, f.h.Sync())
	return agree(f.comm, err)
}

// sameEverywhere checks that a collective argument is the same at every rank.
func (f *File) sameEverywhere(what string, v int64) error {
	all, err := allgather(f.comm, v)
	if err != nil {
		return err
	}
	for r, x := range all {
		if x != v {
			return core.Errorf(core.ErrNotSame, "rank %d passes %s %d, this rank %d", r, what, x, v)
		}
	}
	return nil
}

func (f *File) writable() error {
	if f.amode&ModeRdonly != 0 {
		return core.Errorf(core.ErrReadOnly, "the file was opened with MPI_MODE_RDONLY")
	}
	return nil
}

func (f *File) readable() error {
	if f.amode&ModeWronly != 0 {
		return core.Errorf(core.ErrAccess, "the file was opened with MPI_MODE_WRONLY")
	}
	return nil
}

// SetAtomicity is MPI_File_set_atomicity, collective.
func (f *File) SetAtomicity(on bool) error {
	v := int64(0)
	if on {
		v = 1
	}
	if err := f.sameEverywhere("flag", v); err != nil {
		return err
	}
	f.mu.Lock()
	f.atomic = on
	f.mu.Unlock()
	return nil
}

// Atomicity is MPI_File_get_atomicity.
func (f *File) Atomicity() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.atomic
}

// The reserved hints (MPI-4.1 §14.2.8) and ROMIO's that programs set, with the values
// mpix reports when the program set none. Other keys are kept and reported back.
func defaultHints(c *core.Comm) [][2]string {
	return [][2]string{
		{"cb_buffer_size", "16777216"},
		{"romio_cb_read", "automatic"},
		{"romio_cb_write", "automatic"},
		{"cb_nodes", strconv.Itoa(nodes(c))},
		{"romio_no_indep_rw", "false"},
		{"romio_ds_read", "automatic"},
		{"romio_ds_write", "automatic"},
		{"ind_rd_buffer_size", "4194304"},
		{"ind_wr_buffer_size", "524288"},
	}
}

// nodes is the number of nodes c's ranks run on: the default number of aggregators.
func nodes(c *core.Comm) int {
	peers := core.Peers()
	seen := map[int]bool{}
	for r := 0; r < c.Size; r++ {
		if w := c.WorldRank(r); w >= 0 && w < len(peers) {
			seen[peers[w].Node] = true
		}
	}
	return max(1, len(seen))
}

// applyHints records the hints of an info (nil: none). Every key is kept, as set:
// MPI_File_get_info reports it as the value in use.
func (f *File) applyHints(info *core.Info) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, kv := range defaultHints(f.comm) {
		if _, ok, _ := f.hints.Get(kv[0]); !ok {
			f.hints.Set(kv[0], kv[1])
		}
	}
	if info == nil {
		return
	}
	for i := 0; i < info.NKeys(); i++ {
		k, err := info.NthKey(i)
		if err != nil {
			continue
		}
		if v, ok, _ := info.Get(k); ok {
			f.hints.Set(k, v)
		}
	}
}

// SetInfo is MPI_File_set_info.
func (f *File) SetInfo(info *core.Info) error {
	f.applyHints(info)
	return nil
}

// Info is MPI_File_get_info: a new info object with the hints in use.
func (f *File) Info() *core.Info {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := core.NewInfo()
	for i := 0; i < f.hints.NKeys(); i++ {
		k, _ := f.hints.NthKey(i)
		v, _, _ := f.hints.Get(k)
		out.Set(k, v)
	}
	return out
}

// sidecarName is the name of the shared file pointer's file next to path.
func sidecarName(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, fmt.Sprintf(".%s.mpix-shfp.%d.%d", base, os.Getpid(), sidecarSeq.Add(1)))
}

var sidecarSeq atomic.Int64

package mpiio

import (
	"encoding/binary"
	"sync"

	"mpix/core"
)

// The shared file pointer lives in a small sidecar file next to the data file
// (".<name>.mpix-shfp.<pid>.<n>", made by rank 0 at open, removed at close), as in
// ROMIO: every process of the file's communicator opens it, and an update is a
// read-modify-write of its first 8 bytes under an exclusive fcntl lock (plus a mutex
// for the threads of one process, which fcntl locks do not separate). This works
// across nodes wherever the file system honours fcntl locks (local file systems, NFS
// with lockd, Lustre and GPFS), costs no progress at rank 0, and needs no window.
// When the sidecar cannot be made (a read-only directory), the file opens anyway
// and the shared-pointer procedures fail with MPI_ERR_IO.
type sharedPointer struct {
	path string
	h    Handle
	mu   sync.Mutex
}

func newSharedPointer(f *File, init int64) (*sharedPointer, error) {
	c := f.comm
	var name []byte
	var sp *sharedPointer
	if c.Rank == 0 {
		path := sidecarName(f.path)
		h, err := f.drv.Open(path, Access{Read: true, Write: true, Create: true, Exclusive: true}, 0o600)
		if err == nil {
			sp = &sharedPointer{path: path, h: h}
			if err = sp.store(init); err != nil {
				h.Close()
				f.drv.Delete(path)
				sp = nil
			}
		}
		if sp != nil {
			name = []byte(path)
		}
	}
	name, err := bcastBytes(c, 0, name)
	if err != nil {
		return nil, err
	}
	if len(name) == 0 {
		return nil, nil
	}
	var oerr error
	if c.Rank != 0 {
		var h Handle
		h, oerr = f.drv.Open(string(name), Access{Read: true, Write: true}, 0)
		if oerr == nil {
			sp = &sharedPointer{path: string(name), h: h}
		}
	}
	if agree(c, ioError("open the shared file pointer", oerr)) != nil {
		sp.close(c.Rank == 0)
		return nil, nil
	}
	return sp, nil
}

func (sp *sharedPointer) check() error {
	if sp == nil {
		return core.Errorf(core.ErrIO, "mpix: the file has no shared file pointer (its directory did not let rank 0 create the pointer's file at open)")
	}
	return nil
}

func (sp *sharedPointer) load() (int64, error) {
	var b [8]byte
	if _, err := sp.h.ReadAt(b[:], 0); err != nil {
		return 0, ioError("read the shared file pointer", err)
	}
	return int64(binary.LittleEndian.Uint64(b[:])), nil
}

func (sp *sharedPointer) store(v int64) error {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(v))
	_, err := sp.h.WriteAt(b[:], 0)
	return ioError("write the shared file pointer", err)
}

// locked runs fn with the pointer locked against every process and thread.
func (sp *sharedPointer) locked(exclusive bool, fn func() error) error {
	if err := sp.check(); err != nil {
		return err
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if err := sp.h.Lock(0, 8, exclusive); err != nil {
		return ioError("lock the shared file pointer", err)
	}
	err := fn()
	if uerr := sp.h.Unlock(0, 8); err == nil && uerr != nil {
		err = ioError("unlock the shared file pointer", uerr)
	}
	return err
}

// fetchAdd advances the pointer by n etypes and returns where it was.
func (sp *sharedPointer) fetchAdd(n int64) (old int64, err error) {
	err = sp.locked(true, func() error {
		if old, err = sp.load(); err != nil {
			return err
		}
		return sp.store(old + n)
	})
	return old, err
}

func (sp *sharedPointer) get() (v int64, err error) {
	err = sp.locked(false, func() error { v, err = sp.load(); return err })
	return v, err
}

func (sp *sharedPointer) set(v int64) error {
	return sp.locked(true, func() error { return sp.store(v) })
}

// close closes this process's handle; remove (rank 0, after every rank closed) also
// deletes the sidecar.
func (sp *sharedPointer) close(remove bool) {
	if sp == nil {
		return
	}
	sp.h.Close()
	if remove {
		posix{}.Delete(sp.path)
	}
}

// Package mpiio is MPI-IO, the file chapter of MPI (MPI-4.1 §14): open files, file
// views over derived datatypes, reads and writes at explicit offsets, through the
// individual and the shared file pointers, blocking, nonblocking and collective.
//
// The file system is reached through a Driver (driver.go), so that a driver aware of
// Lustre or GPFS can be added beside the POSIX one (posix.go), the only one built now.
// A view (view.go) maps the data stream a process sees, in etypes, onto byte ranges of
// the file; File (file.go) holds an open file's state and carries out the accesses;
// shared.go keeps the shared file pointer. capi/file.go converts the C calls.
package mpiio

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"

	"mpix/core"
)

// Access is how a driver opens a file.
type Access struct {
	Read, Write bool // at least one
	Create      bool // create the file if it does not exist
	Exclusive   bool // with Create: fail if it exists
}

// Caps says what a driver's files can do beyond reading and writing.
type Caps struct {
	Locks       bool // byte-range locks (atomic mode, the shared file pointer)
	Preallocate bool // reserving blocks without writing them
}

// Driver is the file system behind MPI-IO: the layer above calls only these, so a
// Lustre or GPFS driver (striping hints, its own locking) can take the POSIX one's
// place for the files it serves.
type Driver interface {
	Name() string
	Caps() Caps
	Open(path string, a Access, perm uint32) (Handle, error)
	Delete(path string) error
}

// Handle is an open file of a driver. Offsets are bytes from the start of the file.
// ReadAt returns fewer bytes than asked only at the end of the file.
type Handle interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Size() (int64, error)
	Truncate(size int64) error
	Preallocate(size int64) error // the file has at least size bytes of storage
	Sync() error
	// Lock takes a byte-range lock (shared or exclusive) of [off, off+n), n 0 meaning
	// to the end of the file, waiting for conflicting ones; Unlock releases it.
	Lock(off, n int64, exclusive bool) error
	Unlock(off, n int64) error
	Close() error
}

// driverFor picks the driver of a file name. ROMIO's "ufs:", "nfs:"... prefixes name
// a driver; every prefix is the POSIX one today.
func driverFor(name string) (Driver, string) {
	for _, p := range []string{"ufs:", "nfs:", "lustre:", "gpfs:", "posix:"} {
		if len(name) > len(p) && name[:len(p)] == p {
			return posix{}, name[len(p):]
		}
	}
	return posix{}, name
}

// ioError turns a file system error into an MPI error of the right class.
func ioError(what string, err error) error {
	if err == nil {
		return nil
	}
	var e *core.Error
	if errors.As(err, &e) {
		return err
	}
	class := core.ErrIO
	var errno unix.Errno
	if errors.As(err, &errno) {
		switch errno {
		case unix.ENOENT, unix.ENOTDIR:
			class = core.ErrNoSuchFile
		case unix.EEXIST:
			class = core.ErrFileExists
		case unix.EACCES, unix.EPERM:
			class = core.ErrAccess
		case unix.EROFS:
			class = core.ErrReadOnly
		case unix.ENOSPC:
			class = core.ErrNoSpace
		case unix.EDQUOT:
			class = core.ErrQuota
		case unix.ENAMETOOLONG, unix.EISDIR, unix.ELOOP:
			class = core.ErrBadFile
		case unix.ETXTBSY, unix.EBUSY:
			class = core.ErrFileInUse
		}
	} else if errors.Is(err, fs.ErrNotExist) {
		class = core.ErrNoSuchFile
	}
	return core.Errorf(class, "%s: %v", what, err)
}
